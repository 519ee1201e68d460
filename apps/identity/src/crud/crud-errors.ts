import { CommonErrorCodes } from '@arbiter/contracts';

/**
 * Stable `code` values of the generic CRUD endpoints (in the hosted envelope's `errors[].code`). An
 * entity's own unique-constraint code (`EntityDefinition.conflictCode`) comes from its feature's catalog.
 */
export const CrudErrors = {
  /** No undeleted entry of the tenant with this id (or the id is not a UUID). */
  NotFound: CommonErrorCodes.NotFound,
  /** A unique constraint refused the write and the entity names no code of its own. */
  Conflict: CommonErrorCodes.Conflict,
} as const;
