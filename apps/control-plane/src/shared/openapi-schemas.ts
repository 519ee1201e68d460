import type { Type } from '@nestjs/common';
import { getSchemaPath } from '@nestjs/swagger';

/**
 * Schema options for `ApiProperty` that the field's TypeScript type cannot give: any JSON value, null
 * included (a fact's value, a diffed output), which a generated client reads as a union of them all.
 */
export const ANY_JSON_VALUE = {
  anyOf: [
    { type: 'string' },
    { type: 'number' },
    { type: 'boolean' },
    { type: 'array', items: {} },
    { type: 'object', additionalProperties: true, nullable: true },
  ],
} as { anyOf: Record<string, unknown>[] };

/** An ISO-8601 UTC instant, as every response writes timestamps. */
export const INSTANT = { type: 'string', format: 'date-time' } as const;

/**
 * `ApiProperty` options of an object of a declared class that may be null (`X | null`). OpenAPI 3.0 has no
 * null type, and `nullable` beside an `allOf` reference does not admit null in validators: the null is a
 * branch of its own. The class must be in the document (`@ApiExtraModels` where nothing else refers to it).
 */
export function nullableObjectOf(type: Type<unknown>) {
  return {
    anyOf: [{ $ref: getSchemaPath(type) }, { type: 'object', nullable: true, enum: [null] }],
  } as { anyOf: Record<string, unknown>[] };
}
