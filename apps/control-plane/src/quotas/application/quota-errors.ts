import { AuthErrorCodes } from '@arbiter/auth';
import { AppError, defineErrorFamily } from '@arbiter/platform';
import { TIERS } from '../domain/tiers';
import { secondsUntil } from '../domain/windows';

/** Stable `code` values of the quota API and the gate (the spec leaves them open). */
export const QuotaErrors = {
  QuotaExceeded: 'QUOTA_EXCEEDED',
  ConcurrencyLimitExceeded: 'CONCURRENCY_LIMIT_EXCEEDED',
  UnknownTier: 'UNKNOWN_TIER',
  TenantMismatch: 'TENANT_MISMATCH',
  RoleRequired: 'ROLE_REQUIRED',
} as const;

/** The errors of the quota routes: an unknown tier, another tenant's quotas, a missing role; auth. */
export const QuotaErrorFamily = defineErrorFamily({
  name: 'QuotaError',
  envelope: 'trace',
  description: 'A quota failure: `{ error, code, traceId }` (`details` on validation failures).',
  codes: [
    {
      UnknownTier: QuotaErrors.UnknownTier,
      TenantMismatch: QuotaErrors.TenantMismatch,
      RoleRequired: QuotaErrors.RoleRequired,
    },
    AuthErrorCodes,
  ],
});

/** 429: an evaluation limit is used up until `resetsAt` (epoch ms). */
export function quotaExceeded(limit: string, value: number, resetsAt: number, now: number): AppError {
  const retryAfter = secondsUntil(resetsAt, now);
  return new AppError(
    429,
    QuotaErrors.QuotaExceeded,
    `Quota ${limit} (${value}) is used up; it resets at ${new Date(resetsAt).toISOString()}`,
    [{ field: limit, message: `limit ${value} reached` }],
    { 'retry-after': String(retryAfter) },
  );
}

/** 429: every concurrency slot of the tenant is in use; retry in about a second. */
export function concurrencyLimitExceeded(value: number): AppError {
  return new AppError(
    429,
    QuotaErrors.ConcurrencyLimitExceeded,
    `All ${value} concurrent execution slots of the tenant are in use`,
    [{ field: 'maxConcurrentExecutions', message: `limit ${value} reached` }],
    { 'retry-after': '1' },
  );
}

export function unknownTier(tier: unknown): AppError {
  return AppError.badRequest(
    QuotaErrors.UnknownTier,
    `Unknown tier '${String(tier)}': one of ${TIERS.join(', ')}`,
    [{ field: 'tier', message: `must be one of ${TIERS.join(', ')}` }],
  );
}
