import { AppError, FieldProblem } from '@arbiter/platform';
import { formatProblem, Problem } from '../domain/problems';

/** Stable `code` values of the rule set API (the spec leaves them open; listed in the README). */
export const RuleSetErrors = {
  InvalidRuleSet: 'INVALID_RULESET',
  InvalidWorkflowName: 'INVALID_WORKFLOW_NAME',
  InvalidVersion: 'INVALID_VERSION',
  RuleSetNotFound: 'RULESET_NOT_FOUND',
  VersionNotFound: 'VERSION_NOT_FOUND',
  NoActiveVersion: 'NO_ACTIVE_VERSION',
  InvalidStateTransition: 'INVALID_STATE_TRANSITION',
  SelfApproval: 'SELF_APPROVAL',
  ApprovalRequired: 'APPROVAL_REQUIRED',
  ReasonRequired: 'REJECTION_REASON_REQUIRED',
  DetailRequired: 'DETAIL_REQUIRED',
  ApprovalDisabled: 'ROUTE_NOT_FOUND',
  InvalidExportFormat: 'INVALID_EXPORT_FORMAT',
  FileStoreDisabled: 'FILE_STORE_NOT_CONFIGURED',
  FileStoreNotFound: 'FILE_STORE_NOT_FOUND',
  FileStoreConflict: 'FILE_STORE_CONFLICT',
  HubTokenInvalid: 'HUB_CONNECTION_INVALID',
} as const;

export const WORKFLOW_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/;

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

export function assertWorkflowName(name: string): string {
  if (!WORKFLOW_NAME.test(name))
    throw AppError.badRequest(
      RuleSetErrors.InvalidWorkflowName,
      `Workflow name '${name}' is invalid: 1-128 characters, letters, digits, '_', '.', '-'`,
    );
  return name;
}

export function parseVersion(raw: unknown, field = 'version'): number {
  const text = typeof raw === 'number' ? String(raw) : typeof raw === 'string' ? raw.trim() : '';
  if (!/^\d{1,9}$/.test(text) || Number(text) < 1)
    throw AppError.badRequest(RuleSetErrors.InvalidVersion, `${field} must be a positive integer`, [
      { field, message: 'must be a positive integer' },
    ]);
  return Number(text);
}
