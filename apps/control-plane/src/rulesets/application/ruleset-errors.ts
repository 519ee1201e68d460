import { AuthErrorCodes } from '@arbiter/auth';
import { AppError, defineErrorFamily, FieldProblem } from '@arbiter/platform';
import { formatProblem, Problem } from '@arbiter/rule-engine';
import { RequestParamErrors } from '../../shared';
import { actionVerb, LifecycleAction, TransitionVerdict } from '../domain/version-lifecycle';

/**
 * Stable `code` values of the rule set API (the spec leaves them open; listed in the README). The
 * codes of a bad workflow name or version number are shared by every feature (`src/shared`).
 */
export const RuleSetErrors = {
  InvalidRuleSet: 'INVALID_RULESET',
  RuleSetNotFound: 'RULESET_NOT_FOUND',
  VersionNotFound: 'VERSION_NOT_FOUND',
  NoActiveVersion: 'NO_ACTIVE_VERSION',
  InvalidStateTransition: 'INVALID_STATE_TRANSITION',
  SelfApproval: 'SELF_APPROVAL',
  ApprovalRequired: 'APPROVAL_REQUIRED',
  RejectionReasonRequired: 'REJECTION_REASON_REQUIRED',
  DetailRequired: 'DETAIL_REQUIRED',
  /** The approval routes do not exist while approval is off: answered as an unknown route. */
  ApprovalRoutesDisabled: 'ROUTE_NOT_FOUND',
  InvalidExportFormat: 'INVALID_EXPORT_FORMAT',
  FileStoreNotConfigured: 'FILE_STORE_NOT_CONFIGURED',
  FileStoreNotFound: 'FILE_STORE_NOT_FOUND',
  FileStoreConflict: 'FILE_STORE_CONFLICT',
  /** `RuleControlPlane:RequireScenarioGate`: the version's scenario gate failed or has not run (409) */
  ScenarioGateNotPassed: 'SCENARIO_GATE_NOT_PASSED',
  /** `RuleControlPlane:RequireScenarioGate`: the decisions service did not answer whether it passed (503) */
  ScenarioGateUnavailable: 'SCENARIO_GATE_UNAVAILABLE',
} as const;

/**
 * The errors of the rule set routes (`/api/v1/rule-engine/rulesets`, the rule set routes of
 * `/api/v1/control-plane`, `/api/v1/tenants`, `/api/v1/rule-flow/contract`): the rule set codes, a bad
 * workflow name or version, and the operator authentication's codes.
 */
export const RuleSetErrorFamily = defineErrorFamily({
  name: 'RuleSetError',
  envelope: 'trace',
  description:
    'A rule set route failure: `{ error, code, traceId }`, with `details` (one entry per bad field or ' +
    'rule set problem, its JSON path in `field`) on validation failures.',
  codes: [RuleSetErrors, RequestParamErrors, AuthErrorCodes],
});

export function invalidRuleSet(problems: Problem[], prefix = ''): AppError {
  const details: FieldProblem[] = problems.map((p) => ({
    field: prefix && p.path ? `${prefix}.${p.path}` : prefix || p.path,
    message: p.message,
  }));
  const first = problems[0] ? formatProblem({ ...problems[0], path: details[0].field }) : 'invalid';
  return AppError.badRequest(
    RuleSetErrors.InvalidRuleSet,
    `Invalid rule set (${problems.length} problem${problems.length === 1 ? '' : 's'}): ${first}`,
    details,
  );
}

export const ruleSetNotFound = (workflowName: string) =>
  AppError.notFound(RuleSetErrors.RuleSetNotFound, `Workflow '${workflowName}' not found`);

export const versionNotFound = (workflowName: string, version: number) =>
  AppError.notFound(RuleSetErrors.VersionNotFound, `Version ${version} of '${workflowName}' not found`);

export const approvalRoutesDisabled = () =>
  AppError.notFound(
    RuleSetErrors.ApprovalRoutesDisabled,
    'Approval routes exist only when RuleControlPlane:RequireApproval is true',
  );

/** 409 for a transition the version lifecycle refuses. */
export function refusedTransition(
  workflowName: string,
  version: number,
  status: string,
  action: LifecycleAction,
  refusal: Extract<TransitionVerdict, { allowed: false }>['refusal'],
): AppError {
  if (refusal === 'approval-required')
    return AppError.conflict(
      RuleSetErrors.ApprovalRequired,
      `Version ${version} of '${workflowName}' is ${status}: approval is required before activation`,
    );
  return AppError.conflict(
    RuleSetErrors.InvalidStateTransition,
    `Cannot ${actionVerb(action)} version ${version} of '${workflowName}': it is ${status}`,
  );
}
