import { AuthErrorCodes } from '@arbiter/auth';
import { AppError, defineErrorFamily } from '@arbiter/platform';
import { RuleSetErrors } from '../../rulesets';
import { RequestParamErrors } from '../../shared';

/** Stable `code` values of the canary routes (the spec leaves them open). */
export const CanaryErrors = {
  Disabled: 'CANARY_DISABLED',
  RolloutNotFound: 'ROLLOUT_NOT_FOUND',
  VersionActive: 'CANARY_VERSION_ACTIVE',
  AlreadyActive: 'CANARY_ALREADY_ACTIVE',
  TargetConflict: 'CANARY_TARGET_CONFLICT',
  InvalidPercentage: 'INVALID_TARGET_PERCENTAGE',
  InvalidTenants: 'INVALID_TARGET_TENANTS',
  TenantAssigned: 'CANARY_TENANT_ASSIGNED',
  TargetNotServed: 'CANARY_TARGET_NOT_SERVED',
  ReasonRequired: 'ROLLBACK_REASON_REQUIRED',
  InvalidStateTransition: 'INVALID_STATE_TRANSITION',
} as const;

/**
 * The errors of the canary routes (every prefix): the canary's own codes, the rule set codes of the version
 * a rollout starts from or promotes (unknown workflow or version, approval required, a transition the
 * version lifecycle refuses), a bad workflow name or version number, and auth.
 */
export const CanaryErrorFamily = defineErrorFamily({
  name: 'CanaryError',
  envelope: 'trace',
  description: 'A canary failure: `{ error, code, traceId }` (`details` on validation failures).',
  codes: [
    CanaryErrors,
    {
      RuleSetNotFound: RuleSetErrors.RuleSetNotFound,
      VersionNotFound: RuleSetErrors.VersionNotFound,
      ApprovalRequired: RuleSetErrors.ApprovalRequired,
      InvalidStateTransition: RuleSetErrors.InvalidStateTransition,
    },
    RequestParamErrors,
    AuthErrorCodes,
  ],
});

export const canaryDisabled = () =>
  AppError.notFound(
    CanaryErrors.Disabled,
    'Canary rollouts are disabled (RuleControlPlane:EnableCanary=false)',
  );

export const rolloutNotFound = (what: string) =>
  AppError.notFound(CanaryErrors.RolloutNotFound, `Canary rollout ${what} not found`);

export const wrongRolloutState = (rolloutId: string, status: string, action: string) =>
  AppError.conflict(
    CanaryErrors.InvalidStateTransition,
    `Cannot ${action} canary rollout ${rolloutId}: it is ${status} (only an Active rollout can be promoted or rolled back)`,
  );
