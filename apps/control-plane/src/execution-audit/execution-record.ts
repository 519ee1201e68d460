/** One field that differs between the active and the candidate output facts (spec 1, "shadowDiff"). */
export interface ShadowDifference {
  field: string;
  activeValue: unknown;
  candidateValue: unknown;
  severity: 'none' | 'medium' | 'high';
}

export interface ShadowDiffRecord {
  candidateVersion: number;
  /** Worst severity over the differences (`none` when the outputs are equal). */
  severity: 'none' | 'medium' | 'high';
  differences: ShadowDifference[];
}

/** Which path served an execution. */
export type ExecutionArm = 'active' | 'canary' | 'traditional';

/** One execution as the executor hands it to the audit (spec 1, "Execution audit entry"). */
export interface ExecutionRecord {
  executionId: string;
  tenantId: string;
  workflowName: string;
  /** Version that served the client (null on the traditional path). */
  version: number | null;
  correlationId: string;
  executedAt: string;
  executionTimeMs: number;
  rulesMatched: string[];
  status: 'success' | 'error';
  /** Error codes of the execution, when it failed (or partly failed). */
  errorCodes: string[];
  arm: ExecutionArm;
  rolloutId: string | null;
  mode: 'Traditional' | 'Rules' | 'Hybrid' | 'Shadow';
  shadowDiff: ShadowDiffRecord | null;
}

/** Executions and errors per arm of a canary rollout (rollout metrics). */
export interface ArmStatistics {
  arm: ExecutionArm;
  version: number | null;
  executions: number;
  errors: number;
  errorRate: number;
}

/**
 * Where executions are recorded. `record` never blocks the hot path while the buffer has room; when it
 * is full it returns a promise that resolves once there is room again (back-pressure) — callers await it.
 */
export abstract class ExecutionAuditSink {
  abstract record(entry: ExecutionRecord): void | Promise<void>;
}

/** Read side used by canary rollout metrics (current tenant from the unit of work). */
export abstract class ExecutionAuditQueries {
  abstract armStatistics(workflowName: string, rolloutId: string): Promise<ArmStatistics[]>;
}
