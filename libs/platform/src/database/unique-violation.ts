/**
 * Whether a database error is PostgreSQL's unique violation (SQLSTATE 23505), raw from the driver or wrapped by
 * TypeORM (`QueryFailedError.driverError`): the constraint, not a prior read, decides a race between two writers.
 */
export function isUniqueViolation(error: unknown): boolean {
  const e = error as { code?: unknown; driverError?: { code?: unknown } } | null | undefined;
  return (e?.driverError?.code ?? e?.code) === '23505';
}
