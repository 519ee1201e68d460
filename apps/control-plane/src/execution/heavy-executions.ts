import { STEP_BUDGET } from '@arbiter/feel';
import {
  AUTHORING_TASKS_FILE,
  type DryRunTaskResult,
  type Facts,
  type RuleSetEvaluation,
  type RuleSetShapeName,
  type StoredExecutionTask,
} from '@arbiter/rule-engine';
import { WorkerOutOfMemory, WorkerPool, WorkerPoolBusy, WorkerTaskTimeout } from '@arbiter/platform';
import { Inject, Injectable, OnModuleDestroy } from '@nestjs/common';
import { ExecutionResultErrorCodes } from './execution-errors';
import { RuleEngineSettings } from './execution.settings';
import type { ExecutableVersion } from './rule-set-versions';

/** How long past the execution's deadline a worker may take to answer before its thread is stopped. */
const WORKER_GRACE_MS = 250;

/** The FEEL budget error: the evaluation outgrew the steps it was given. */
const BUDGET_EXCEEDED = 'EVALUATION_BUDGET_EXCEEDED';

export interface HeavyRun {
  facts: Facts;
  trace: boolean;
  deadline: number;
  tenantId: string;
  correlationId: string;
}

/**
 * Stored versions whose FEEL outgrows the service's in-process share (`RuleEngineOptions:InProcessFeelSteps`):
 * the execution is run again on a worker thread (`RuleEngineOptions:ExecutionWorkers:*`) with the whole
 * budget and deadline, so an author's saved loop costs nobody else anything. A version with side effects
 * (a connector node) or that the worker cannot serve (a stored table, a sub flow: `needsHost`) is run
 * again here with the whole budget, as before. Threads start on first use.
 */
@Injectable()
export class HeavyExecutions implements OnModuleDestroy {
  private pool: WorkerPool | null = null;
  offloaded = 0;

  constructor(@Inject(RuleEngineSettings) private readonly settings: RuleEngineSettings) {}

  /** The steps an execution may take on the event loop. */
  get inProcessSteps(): number {
    return this.settings.inProcessFeelSteps;
  }

  /** Whether an in-process evaluation stopped at the in-process share rather than at the whole budget. */
  outgrew(evaluation: RuleSetEvaluation): boolean {
    return (
      this.settings.inProcessFeelSteps < STEP_BUDGET &&
      evaluation.errors.some((e) => e.code === BUDGET_EXCEEDED)
    );
  }

  /**
   * The evaluation on a worker thread, or null when the version must run in the service (side effects,
   * service code, a stored table or sub flow).
   */
  async run(version: ExecutableVersion, run: HeavyRun): Promise<RuleSetEvaluation | null> {
    if (!offloadable(version)) return null;
    const task: StoredExecutionTask = {
      key: `${version.tenantId}\u0000${version.workflowName}\u0000${version.version}`,
      document: version.document,
      shape: version.shape as RuleSetShapeName,
      workflowName: version.workflowName,
      facts: run.facts,
      trace: run.trace,
      deadline: run.deadline,
      tenantId: run.tenantId,
      correlationId: run.correlationId,
    };
    this.pool ??= new WorkerPool({
      filename: AUTHORING_TASKS_FILE,
      maxThreads: this.settings.executionWorkerThreads,
      memoryMb: this.settings.executionWorkerMemoryMb,
    });
    let result: DryRunTaskResult;
    try {
      this.offloaded++;
      result = await this.pool.run<DryRunTaskResult>(
        'executeStored',
        task,
        Math.max(0, run.deadline - Date.now()) + WORKER_GRACE_MS,
      );
    } catch (error) {
      if (error instanceof WorkerTaskTimeout)
        return stopped(
          'DEADLINE_EXCEEDED',
          'the execution ran past RuleEngineOptions:ExecutionTimeoutMs and was stopped',
        );
      if (error instanceof WorkerOutOfMemory)
        return stopped(
          ExecutionResultErrorCodes.ExecutionMemory,
          `the execution exhausted its ${error.memoryMb} MiB heap (RuleEngineOptions:ExecutionWorkers:MemoryMb) and was stopped`,
        );
      if (error instanceof WorkerPoolBusy)
        return stopped(
          ExecutionResultErrorCodes.ExecutionBusy,
          'every execution worker is busy with long evaluations; try again shortly',
        );
      throw error;
    }
    if (result.ok) return result.evaluation;
    return null; // needsHost, or a compile problem the service reports itself
  }

  async onModuleDestroy(): Promise<void> {
    await this.pool?.close();
  }
}

/** Service code (code-based rules) and connector nodes (side effects) run in the service only. */
function offloadable(version: ExecutableVersion): boolean {
  if (version.shape === 'code-based') return false;
  const nodes = (version.document as { nodes?: unknown }).nodes;
  return !(Array.isArray(nodes) && nodes.some((n) => (n as { kind?: unknown })?.kind === 'connector'));
}

function stopped(code: string, message: string): RuleSetEvaluation {
  return {
    outputs: {},
    traces: [],
    errors: [{ code, message }],
    rulesMatched: [],
    rulesExecuted: 0,
    sideEffectsApplied: false,
  };
}
