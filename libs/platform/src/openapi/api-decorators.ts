import { applyDecorators } from '@nestjs/common';
import { ApiExtension } from '@nestjs/swagger';
import type { ErrorFamily } from './error-family';

/** Extension keys the document builder reads (and removes) while it finishes the document. */
export const OPENAPI_EXTENSIONS = {
  errorFamily: 'x-arbiter-error-family',
  errorStatuses: 'x-arbiter-error-statuses',
  public: 'x-arbiter-public',
} as const;

/** In a response schema: the operation's error family (replaced when the document is finished). */
export const ERROR_FAMILY_REF = '#/components/schemas/{ErrorFamily}';

/**
 * The error family of a controller's routes (on the class) or of one route (on the method): the schema
 * every error response of the operation refers to.
 */
export function ApiErrorFamily(family: ErrorFamily): ClassDecorator & MethodDecorator {
  return ApiExtension(OPENAPI_EXTENSIONS.errorFamily, family) as ClassDecorator & MethodDecorator;
}

/**
 * The error statuses a route answers with beyond those the document adds from the operation's shape (400 and
 * 500 always; 413 and 415 with a body; 401 and 403 unless public), each with the family's error body.
 * Optionally the family too, when it is not the controller's.
 */
export function ApiErrors(...args: (number | ErrorFamily)[]): MethodDecorator & ClassDecorator {
  const statuses = args.filter((a): a is number => typeof a === 'number');
  const family = args.find((a): a is ErrorFamily => typeof a === 'object');
  const decorators = [ApiExtension(OPENAPI_EXTENSIONS.errorStatuses, statuses)];
  if (family) decorators.push(ApiExtension(OPENAPI_EXTENSIONS.errorFamily, family));
  return applyDecorators(...decorators);
}

/** Reachable without credentials: the operation's `security` is empty and it answers no 401/403. */
export function ApiPublic(): MethodDecorator & ClassDecorator {
  return ApiExtension(OPENAPI_EXTENSIONS.public, true) as MethodDecorator & ClassDecorator;
}
