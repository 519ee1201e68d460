import { applyDecorators, Type as ClassType } from '@nestjs/common';
import { ApiProperty } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { OpaqueJson } from './opaque-json';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsBoolean,
  IsDateString,
  IsEmail,
  IsIn,
  IsInt,
  IsNumber,
  IsObject,
  IsOptional,
  IsString,
  IsUrl,
  IsUUID,
  Matches,
  Max,
  MaxLength,
  Min,
  MinLength,
  ValidateIf,
  ValidateNested,
} from 'class-validator';

/**
 * Request-body fields declared once: each decorator applies the class-validator rules that check the field
 * and the OpenAPI property that describes it, from the same options, so the document cannot say what the
 * validation pipe does not enforce (or the reverse). Response classes use `ApiProperty` directly.
 */
export interface FieldOptions {
  description?: string;
  example?: unknown;
  /** May be absent (`undefined`); `nullable` also accepts `null`. */
  optional?: boolean;
  nullable?: boolean;
  deprecated?: boolean;
  /**
   * The error code of a value this field refuses, instead of `VALIDATION_FAILED` (for example
   * `INVALID_VERSION` for a version number, so a body answers like a path).
   */
  code?: string;
}

/** The class-validator options that carry the field's code to the validation error. */
function withCode(options: FieldOptions): { context?: { code: string } } {
  return options.code ? { context: { code: options.code } } : {};
}

function presence(options: FieldOptions): PropertyDecorator[] {
  if (options.nullable) return [ValidateIf((_o, value) => value !== null && value !== undefined)];
  return options.optional ? [IsOptional()] : [];
}

function property(options: FieldOptions, schema: Record<string, unknown>): PropertyDecorator {
  return ApiProperty({
    required: !(options.optional || options.nullable),
    ...(options.nullable ? { nullable: true } : {}),
    ...(options.description ? { description: options.description } : {}),
    ...(options.example !== undefined ? { example: options.example } : {}),
    ...(options.deprecated ? { deprecated: true } : {}),
    ...schema,
  } as never);
}

export function StringField(
  options: FieldOptions & {
    minLength?: number;
    maxLength?: number;
    /** A regular expression the value must match (anchored by the caller). */
    pattern?: RegExp;
    format?: 'date-time' | 'uuid' | 'email' | 'uri';
  } = {},
): PropertyDecorator {
  const rules: PropertyDecorator[] = [IsString()];
  if (options.minLength !== undefined) rules.push(MinLength(options.minLength));
  if (options.maxLength !== undefined) rules.push(MaxLength(options.maxLength));
  if (options.pattern) rules.push(Matches(options.pattern));
  if (options.format === 'date-time') rules.push(IsDateString({ strict: true }));
  if (options.format === 'email') rules.push(IsEmail());
  if (options.format === 'uuid') rules.push(IsUUID());
  if (options.format === 'uri') rules.push(IsUrl({ require_tld: false }));
  return applyDecorators(
    property(options, {
      type: 'string',
      ...(options.minLength !== undefined ? { minLength: options.minLength } : {}),
      ...(options.maxLength !== undefined ? { maxLength: options.maxLength } : {}),
      ...(options.pattern ? { pattern: options.pattern.source } : {}),
      ...(options.format ? { format: options.format } : {}),
    }),
    ...presence(options),
    ...rules,
  );
}

export function EnumField(values: readonly string[], options: FieldOptions = {}): PropertyDecorator {
  return applyDecorators(
    property(options, { type: 'string', enum: [...values] }),
    ...presence(options),
    IsIn([...values]),
  );
}

export function IntField(options: FieldOptions & { min?: number; max?: number } = {}): PropertyDecorator {
  const coded = withCode(options);
  const rules: PropertyDecorator[] = [IsInt(coded)];
  if (options.min !== undefined) rules.push(Min(options.min, coded));
  if (options.max !== undefined) rules.push(Max(options.max, coded));
  return applyDecorators(
    property(options, {
      type: 'integer',
      ...(options.min !== undefined ? { minimum: options.min } : {}),
      ...(options.max !== undefined ? { maximum: options.max } : {}),
    }),
    ...presence(options),
    ...rules,
  );
}

export function NumberField(options: FieldOptions & { min?: number; max?: number } = {}): PropertyDecorator {
  const rules: PropertyDecorator[] = [IsNumber({ allowNaN: false, allowInfinity: false })];
  if (options.min !== undefined) rules.push(Min(options.min));
  if (options.max !== undefined) rules.push(Max(options.max));
  return applyDecorators(
    property(options, {
      type: 'number',
      ...(options.min !== undefined ? { minimum: options.min } : {}),
      ...(options.max !== undefined ? { maximum: options.max } : {}),
    }),
    ...presence(options),
    ...rules,
  );
}

export function BooleanField(options: FieldOptions = {}): PropertyDecorator {
  return applyDecorators(property(options, { type: 'boolean' }), ...presence(options), IsBoolean());
}

/** A JSON object whose keys are open (facts, outputs, documents checked by the engine itself). */
export function ObjectField(options: FieldOptions = {}): PropertyDecorator {
  return applyDecorators(
    property(options, { type: 'object', additionalProperties: true }),
    ...presence(options),
    IsObject(),
    OpaqueJson('object'),
  );
}

/**
 * An array of strings, of open objects, or of a nested class (each element validated). `checkItems:
 * false` documents the elements by their class but checks only that each is an object: for arrays of
 * thousands of elements the service checks itself (transforming and validating each element through
 * class-transformer/class-validator costs ~0.5 ms an element on the event loop: 5 s for 10,000 rows).
 */
export function ArrayField(
  items: 'string' | 'object' | ClassType<unknown>,
  options: FieldOptions & {
    minItems?: number;
    maxItems?: number;
    maxLength?: number;
    checkItems?: boolean;
  } = {},
): PropertyDecorator {
  const rules: PropertyDecorator[] = [IsArray()];
  if (options.minItems !== undefined) rules.push(ArrayMinSize(options.minItems));
  if (options.maxItems !== undefined) rules.push(ArrayMaxSize(options.maxItems));
  let itemSchema: Record<string, unknown>;
  if (items === 'string') {
    rules.push(IsString({ each: true }));
    if (options.maxLength !== undefined) rules.push(MaxLength(options.maxLength, { each: true }));
    itemSchema = {
      items: { type: 'string', ...(options.maxLength !== undefined ? { maxLength: options.maxLength } : {}) },
    };
  } else if (items === 'object' || options.checkItems === false) {
    rules.push(
      IsObject({ each: true }),
      OpaqueJson('objects', { minItems: options.minItems, maxItems: options.maxItems }),
    );
    itemSchema =
      items === 'object'
        ? { items: { type: 'object', additionalProperties: true } }
        : { items: { $ref: `#/components/schemas/${items.name}` } };
  } else {
    rules.push(
      ValidateNested({ each: true }),
      Type(() => items),
    );
    itemSchema = { items: { $ref: `#/components/schemas/${items.name}` } };
  }
  return applyDecorators(
    ApiProperty({
      required: !(options.optional || options.nullable),
      ...(options.nullable ? { nullable: true } : {}),
      ...(options.description ? { description: options.description } : {}),
      ...(options.example !== undefined ? { example: options.example } : {}),
      ...(typeof items === 'function' ? { type: items, isArray: true } : { type: 'array', ...itemSchema }),
      ...(options.minItems !== undefined ? { minItems: options.minItems } : {}),
      ...(options.maxItems !== undefined ? { maxItems: options.maxItems } : {}),
    } as never),
    ...presence(options),
    ...rules,
  );
}

/** A nested object of a declared class, validated field by field. */
export function NestedField(type: ClassType<unknown>, options: FieldOptions = {}): PropertyDecorator {
  return applyDecorators(
    property(options, { type }),
    ...presence(options),
    IsObject(),
    ValidateNested(),
    Type(() => type),
  );
}
