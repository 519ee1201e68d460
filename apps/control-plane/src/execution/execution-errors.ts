import { AuthErrorCodes } from '@arbiter/auth';
import { AppError, defineErrorFamily } from '@arbiter/platform';
import { QuotaErrors } from '../quotas';
import { RuleSetErrors } from '../rulesets';
import { RequestParamErrors } from '../shared';

/**
 * Stable `code` values of the execution routes (execute, dry-run) and of the failures met while a version
 * is prepared (`ExecutionProblem`), which reach the error body through `notExecutable`: 422 when the rule
 * set cannot run, 503 when a dependency does not answer or refuses the control plane's credentials. The
 * spec leaves them open.
 */
export const ExecutionErrorCodes = {
  WorkflowNotFound: 'WORKFLOW_NOT_FOUND',
  NoActiveVersion: 'NO_ACTIVE_VERSION',
  VersionNotFound: 'VERSION_NOT_FOUND',
  RuleSetNotExecutable: 'RULESET_NOT_EXECUTABLE',
  DecisionTableNotFound: 'DECISION_TABLE_NOT_FOUND',
  DecisionTablesUnavailable: 'DECISION_TABLES_UNAVAILABLE',
  DecisionTablesUnauthorized: 'DECISION_TABLES_UNAUTHORIZED',
  SubFlowNotFound: 'SUB_FLOW_NOT_FOUND',
  /** The execute request's `window.configId` names no event-window configuration of the tenant (422). */
  EventWindowNotFound: 'EVENT_WINDOW_NOT_FOUND',
  /** The decisions service did not answer a window read, or refused the credentials (503). */
  EventWindowsUnavailable: 'EVENT_WINDOWS_UNAVAILABLE',
} as const;

/**
 * Codes the control plane itself writes into a result's `errors` (HTTP 200, status `error`), beside the
 * rule engine's own (`EXPRESSION_FAILED`, `DEADLINE_EXCEEDED`, …): never the `code` of an error body.
 */
export const ExecutionResultErrorCodes = {
  DryRunTimeout: 'DRY_RUN_TIMEOUT',
  DryRunMemory: 'DRY_RUN_MEMORY',
  DryRunBusy: 'DRY_RUN_BUSY',
  /** A stored version run on an execution worker (past `InProcessFeelSteps`) exhausted the worker's heap. */
  ExecutionMemory: 'EXECUTION_MEMORY',
  /** Every execution worker was busy with such versions: the execution did not run. */
  ExecutionBusy: 'EXECUTION_BUSY',
  TraditionalFailed: 'TRADITIONAL_FAILED',
} as const;

/** The codes a failure to prepare an execution can carry. */
export type ExecutionProblemCode =
  | typeof ExecutionErrorCodes.DecisionTableNotFound
  | typeof ExecutionErrorCodes.DecisionTablesUnavailable
  | typeof ExecutionErrorCodes.DecisionTablesUnauthorized
  | typeof ExecutionErrorCodes.SubFlowNotFound;

/** A failure to prepare an execution (compile, dependency), named by a code. */
export class ExecutionProblem extends Error {
  constructor(
    readonly code: ExecutionProblemCode,
    message: string,
  ) {
    super(message);
    this.name = 'ExecutionProblem';
  }
}

/** A dependency that does not answer, or refuses our credentials, is ours to fix (503), not the rule set's. */
const DEPENDENCY_PROBLEMS: ReadonlySet<string> = new Set<ExecutionProblemCode>([
  ExecutionErrorCodes.DecisionTablesUnavailable,
  ExecutionErrorCodes.DecisionTablesUnauthorized,
]);

export const ExecutionErrors = {
  workflowNotFound: (workflowName: string) =>
    AppError.notFound(ExecutionErrorCodes.WorkflowNotFound, `Workflow '${workflowName}' has no rule set`),
  noActiveVersion: (workflowName: string) =>
    AppError.notFound(
      ExecutionErrorCodes.NoActiveVersion,
      `Workflow '${workflowName}' has no active version`,
    ),
  versionNotFound: (workflowName: string, version: number) =>
    AppError.notFound(
      ExecutionErrorCodes.VersionNotFound,
      `Version ${version} of workflow '${workflowName}' does not exist`,
    ),
  notExecutable: (workflowName: string, version: number, problem: ExecutionProblem | Error) =>
    new AppError(
      problem instanceof ExecutionProblem && DEPENDENCY_PROBLEMS.has(problem.code) ? 503 : 422,
      problem instanceof ExecutionProblem ? problem.code : ExecutionErrorCodes.RuleSetNotExecutable,
      `Version ${version} of workflow '${workflowName}' cannot run: ${problem.message}`,
    ),
  /** A `ruleSet` given to a dry-run that validates but does not compile. */
  documentNotExecutable: (error: Error) =>
    AppError.badRequest(
      ExecutionErrorCodes.RuleSetNotExecutable,
      `The rule set cannot run: ${error.message}`,
    ),
};

/**
 * The errors of the execution routes (execute, dry-run, execution metrics): the execution codes, an invalid
 * `ruleSet` document given to a dry-run, a bad workflow name or version number, the tenant quota of the
 * execute route (429 with `Retry-After`), and auth.
 */
export const ExecutionErrorFamily = defineErrorFamily({
  name: 'ExecutionError',
  envelope: 'trace',
  description: 'An execution failure: `{ error, code, traceId }` (`details` on validation failures).',
  codes: [
    ExecutionErrorCodes,
    { InvalidRuleSet: RuleSetErrors.InvalidRuleSet },
    RequestParamErrors,
    {
      QuotaExceeded: QuotaErrors.QuotaExceeded,
      ConcurrencyLimitExceeded: QuotaErrors.ConcurrencyLimitExceeded,
    },
    AuthErrorCodes,
  ],
});
