import { CommonErrorCodes } from '@arbiter/contracts';

/** The body shapes failures are written in (`../errors/error-envelope.ts`). */
export type ErrorEnvelopeKind = 'trace' | 'hosted' | 'experience';

/**
 * The errors of one route family: the envelope its failures are written in and every `code` they can
 * carry. The OpenAPI document describes each family once, as a schema whose `code` is an enum, and every
 * error response of the family's operations refers to it. The codes come from the family's own catalogs
 * (the `…Errors` constants the application services throw), so the document cannot name a code the code
 * does not have; the platform's common codes (validation, media type, size, auth, rate limit, internal)
 * are part of every family.
 */
export interface ErrorFamily {
  /** Schema name in the document, e.g. `RuleSetError`. */
  name: string;
  envelope: ErrorEnvelopeKind;
  description: string;
  codes: string[];
}

export function defineErrorFamily(definition: {
  name: string;
  envelope: ErrorEnvelopeKind;
  description: string;
  codes: Record<string, string>[];
}): ErrorFamily {
  const codes = new Set<string>(Object.values(CommonErrorCodes));
  for (const catalog of definition.codes) for (const code of Object.values(catalog)) codes.add(code);
  return {
    name: definition.name,
    envelope: definition.envelope,
    description: definition.description,
    codes: [...codes].sort(),
  };
}

/** The OpenAPI schema of a family's error body. */
export function errorFamilySchema(family: ErrorFamily): Record<string, unknown> {
  const code = { type: 'string', enum: family.codes, description: 'Stable code naming the problem.' };
  const message = { type: 'string', description: 'What went wrong, for a person.' };
  switch (family.envelope) {
    case 'trace':
      return {
        type: 'object',
        description: family.description,
        required: ['error', 'code', 'traceId'],
        properties: {
          error: message,
          code,
          traceId: {
            type: 'string',
            description: 'Correlation id of the request (also `x-correlation-id`).',
          },
          details: {
            type: 'array',
            description: 'One entry per bad field, on validation failures.',
            items: {
              type: 'object',
              required: ['field', 'message'],
              properties: { field: { type: 'string' }, message: { type: 'string' } },
            },
          },
        },
      };
    case 'hosted':
      return {
        type: 'object',
        description: family.description,
        required: ['isSuccess', 'result', 'errors', 'timestamp'],
        properties: {
          isSuccess: { type: 'boolean', enum: [false] },
          result: { type: 'object', nullable: true, description: 'Always null on a failure.' },
          errors: {
            type: 'array',
            minItems: 1,
            items: { type: 'object', required: ['code', 'message'], properties: { code, message } },
          },
          timestamp: { type: 'string', format: 'date-time' },
        },
      };
    case 'experience':
      return {
        type: 'object',
        description: family.description,
        required: ['error', 'code', 'timestamp'],
        properties: { error: message, code, timestamp: { type: 'string', format: 'date-time' } },
      };
  }
}
