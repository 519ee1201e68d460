import { applyDecorators } from '@nestjs/common';
import { ApiParam, ApiProperty, ApiQuery } from '@nestjs/swagger';
import { Allow, IsArray, IsOptional } from 'class-validator';

/**
 * Pieces of the decision-table routes' OpenAPI description shared by the controllers, the request DTOs and
 * the response views: any JSON value, the path and query parameters every route family reads the same way.
 */

/** Any JSON value (an output value, a default, a FEEL result, the two sides of a change); `null` included. */
export const JSON_VALUE_SCHEMA = {
  oneOf: [
    { type: 'string' },
    { type: 'number' },
    { type: 'boolean' },
    { type: 'array', items: {} },
    { type: 'object', additionalProperties: true, nullable: true },
  ],
} as const;

/** A request field holding any JSON value, as the engine reads it (the whitelist keeps it; the engine checks it). */
export function JsonValueField(options: {
  description: string;
  example?: unknown;
  optional?: boolean;
}): PropertyDecorator {
  return applyDecorators(
    ApiProperty({
      required: !options.optional,
      description: options.description,
      ...(options.example !== undefined ? { example: options.example } : {}),
      ...JSON_VALUE_SCHEMA,
    } as never),
    Allow(),
  );
}

/** An optional request field holding an array of any JSON values. */
export function JsonValueListField(options: { description: string; example?: unknown[] }): PropertyDecorator {
  return applyDecorators(
    ApiProperty({
      required: false,
      type: 'array',
      items: JSON_VALUE_SCHEMA,
      description: options.description,
      ...(options.example !== undefined ? { example: options.example } : {}),
    } as never),
    IsOptional(),
    IsArray(),
  );
}

/** `{id}`: a table id (a UUID assigned on create; anything else is a 404 `TABLE_NOT_FOUND`). */
export function ApiTableIdParam(): MethodDecorator {
  return ApiParam({
    name: 'id',
    description: 'Table id (assigned on create).',
    schema: { type: 'string', format: 'uuid' },
    example: '6f1c2b7e-3d4a-4f5b-9c8d-1e2f3a4b5c6d',
  });
}

/** A version number in the path: a positive integer (else 400 `INVALID_VERSION`). */
export function ApiVersionParam(name: string, description: string): MethodDecorator {
  return ApiParam({ name, description, schema: { type: 'integer', minimum: 1, maximum: 999_999_999 } });
}

/** `?version=`: a positive integer (else 400 `INVALID_VERSION`); absent is the latest version. */
export function ApiVersionQuery(description = 'Table version (default: the latest).'): MethodDecorator {
  return ApiQuery({
    name: 'version',
    required: false,
    description,
    schema: { type: 'integer', minimum: 1, maximum: 999_999_999 },
  });
}

/** `?page=&pageSize=` (1-based; a value that is not a positive integer, or a larger size, is a 400). */
export function ApiPageQuery(limits: { defaultSize: number; maxSize: number }): MethodDecorator {
  return applyDecorators(
    ApiQuery({
      name: 'page',
      required: false,
      description: '1-based page number.',
      schema: { type: 'integer', minimum: 1, default: 1 },
    }),
    ApiQuery({
      name: 'pageSize',
      required: false,
      description: `Entries per page (at most ${limits.maxSize}).`,
      schema: { type: 'integer', minimum: 1, maximum: limits.maxSize, default: limits.defaultSize },
    }),
  );
}

/** `?tenantId=`: narrows a list to one tenant (the caller's tenant scoping still applies). */
export function ApiTenantFilterQuery(description: string): MethodDecorator {
  return ApiQuery({ name: 'tenantId', required: false, description, schema: { type: 'string' } });
}
