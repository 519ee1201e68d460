import { AuthErrorCodes } from '@arbiter/auth';
import { defineErrorFamily } from '@arbiter/platform';
import { DecisionTableErrors } from '../decision-tables';

/** Stable `code` values of the scenario routes (the spec leaves them open). */
export const ScenarioErrors = {
  PlanNotFound: 'SCENARIO_PLAN_NOT_FOUND',
  ScenarioNotFound: 'SCENARIO_NOT_FOUND',
  RunNotFound: 'SCENARIO_RUN_NOT_FOUND',
  /** 404: the plan's table (or the version asked for) is gone */
  TableNotFound: DecisionTableErrors.TableNotFound,
  VersionNotFound: DecisionTableErrors.VersionNotFound,
  InvalidVersion: DecisionTableErrors.InvalidVersion,
  /** 422: the stored table no longer compiles (it did when saved; a stricter engine may refuse it) */
  InvalidTable: DecisionTableErrors.InvalidTable,
  /** 400: an edited expectation names a row the table does not have */
  UnknownRow: 'UNKNOWN_ROW',
  /** 404: the control plane has no such workflow (or version) in the tenant */
  WorkflowNotFound: 'WORKFLOW_NOT_FOUND',
  /** 400: not a workflow name (1–128 of letters, digits, `.`, `_`, `-`) */
  InvalidWorkflowName: 'INVALID_WORKFLOW_NAME',
  /** 422: the workflow's document does not compile in the rule set engine (a stored table it names is gone, …) */
  InvalidWorkflow: 'WORKFLOW_NOT_COMPILABLE',
  /** 503: the control plane did not answer over the bus (`rpc.control-plane.ruleset-version`) */
  ControlPlaneUnavailable: 'CONTROL_PLANE_UNAVAILABLE',
  /** 422: the route works on decision-table plans only (a table run of a workflow's plan) */
  NotATablePlan: 'NOT_A_TABLE_PLAN',
  /** 503: no OpenAI-compatible endpoint is configured (`Scenarios:Ai:Endpoint`): no proposals are made up */
  AiModelNotConfigured: 'AI_MODEL_NOT_CONFIGURED',
  /** 502: the configured model endpoint failed or answered something that is not a list of scenarios */
  AiModelFailed: 'AI_MODEL_FAILED',
  /** 422: a generation, run or gate ran past `Scenarios:WorkerTimeoutMs`; its worker thread was stopped */
  DeadlineExceeded: 'SCENARIO_DEADLINE_EXCEEDED',
  /** 422: a generation, run or gate exhausted its worker's heap (`Scenarios:WorkerMemoryMb`) */
  MemoryExceeded: 'SCENARIO_MEMORY_EXCEEDED',
  /** 503: every scenario worker is busy and the queue is full: try again shortly */
  WorkersBusy: 'SCENARIO_WORKERS_BUSY',
  /** 502: the configured embeddings endpoint (`Scenarios:EmbeddingBaseUrl`) failed: nothing is stored */
  EmbeddingModelFailed: 'EMBEDDING_MODEL_FAILED',
} as const;

export const ScenarioErrorFamily = defineErrorFamily({
  name: 'ScenarioError',
  envelope: 'trace',
  description:
    'A scenario-route failure: `{ error, code, traceId }` (`details`, one entry per bad field, on `VALIDATION_FAILED`).',
  codes: [AuthErrorCodes, ScenarioErrors],
});
