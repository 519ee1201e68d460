import {
  AppError,
  parseStoredJsonSliced,
  stringifyJsonSliced,
  WorkerOutOfMemory,
  WorkerPool,
  WorkerPoolBusy,
  WorkerTaskTimeout,
} from '@arbiter/platform';
import type { DecisionTableDefinition } from '@arbiter/rule-engine';
import {
  SCENARIO_TASKS_FILE,
  type ExpectedBehavior,
  type GenerateTableResult,
  type GenerateTableTask,
  type GeneratedPlan,
  type KeepDistinctTask,
  type MutationReport,
  type NotCompiled,
  type RunnableScenario,
  type RunTableResult,
  type RunTableTask,
  type TableExpectationsTask,
  type TableRunReport,
} from '@arbiter/scenarios';
import { Inject, Injectable, OnModuleDestroy } from '@nestjs/common';
import { ScenariosSettings } from '../../settings';
import { ScenarioErrors as E } from '../errors';

type Facts = Record<string, unknown>;

/**
 * The scenario work whose cost grows with the table (generating a plan, running it, the mutation run, the
 * expectations of AI proposals, the near-duplicate comparison) on worker threads (`Scenarios:Workers`,
 * `@arbiter/scenarios`' `SCENARIO_TASKS_FILE`), so a 1,000-row table's plan holds no request of anyone
 * else: the service only reads and writes the database and parses the results (in slices of the loop).
 * Definitions, scenarios and results cross as JSON text. A task past `Scenarios:WorkerTimeoutMs` has its
 * thread stopped (422 SCENARIO_DEADLINE_EXCEEDED); past `Scenarios:WorkerMemoryMb` it dies alone (422
 * SCENARIO_MEMORY_EXCEEDED); a full queue is a 503 SCENARIO_WORKERS_BUSY. A stored table that no longer
 * compiles is the 422 INVALID_TABLE it was in the service.
 */
@Injectable()
export class ScenarioWorkers implements OnModuleDestroy {
  private pool: WorkerPool | null = null;

  constructor(@Inject(ScenariosSettings) private readonly settings: ScenariosSettings) {}

  async generate(
    definition: DecisionTableDefinition,
    options: Omit<GenerateTableTask, 'definitionJson'>,
  ): Promise<GeneratedPlan> {
    const task: GenerateTableTask = { definitionJson: await stringifyJsonSliced(definition), ...options };
    const result = compiled(await this.run<GenerateTableResult>('generateTable', task));
    return (await parseStoredJsonSliced(result.planJson)) as GeneratedPlan;
  }

  /** The plan run against `definition`, then the mutation run when `mutation` is given (the CI gate). */
  async runPlan(
    definition: DecisionTableDefinition,
    scenarios: RunnableScenario[],
    mutation?: RunTableTask['mutation'],
  ): Promise<{ report: TableRunReport; mutation: MutationReport | null }> {
    const task: RunTableTask = {
      definitionJson: await stringifyJsonSliced(definition),
      scenariosJson: await stringifyJsonSliced(scenarios),
      mutation,
    };
    const result = compiled(await this.run<RunTableResult>('runTable', task));
    return {
      report: (await parseStoredJsonSliced(result.reportJson)) as TableRunReport,
      mutation: result.mutation,
    };
  }

  /** What the table does for each of these facts (the expectations of proposed scenarios). */
  async expectations(
    definition: DecisionTableDefinition,
    facts: Facts[],
    why: string,
  ): Promise<ExpectedBehavior[]> {
    const task: TableExpectationsTask = { definitionJson: await stringifyJsonSliced(definition), facts, why };
    return compiled(
      await this.run<{ ok: true; expected: ExpectedBehavior[] } | NotCompiled>('tableExpectations', task),
    ).expected;
  }

  /** Indexes of the entries after `against` that are not near duplicates (`keepDistinctEntries`). */
  keepDistinct(task: KeepDistinctTask): Promise<number[]> {
    return this.run<number[]>('keepDistinctEntries', task);
  }

  private async run<T>(name: string, task: unknown): Promise<T> {
    const limit = this.settings.workerTimeoutMs;
    try {
      return await this.workers().run<T>(name, task, limit);
    } catch (error) {
      if (error instanceof WorkerTaskTimeout)
        throw AppError.unprocessable(
          E.DeadlineExceeded,
          `The scenario work ran past Scenarios:WorkerTimeoutMs (${limit} ms) and was stopped`,
        );
      if (error instanceof WorkerOutOfMemory)
        throw AppError.unprocessable(
          E.MemoryExceeded,
          `The scenario work exhausted its worker's ${error.memoryMb} MiB heap (Scenarios:WorkerMemoryMb) and was stopped`,
        );
      if (error instanceof WorkerPoolBusy)
        throw new AppError(503, E.WorkersBusy, 'Every scenario worker is busy; try again shortly');
      throw error;
    }
  }

  private workers(): WorkerPool {
    return (this.pool ??= new WorkerPool({
      filename: SCENARIO_TASKS_FILE,
      maxThreads: this.settings.workers,
      memoryMb: this.settings.workerMemoryMb,
    }));
  }

  async onModuleDestroy(): Promise<void> {
    await this.pool?.close();
  }
}

/** A stored table that no longer compiles is a 422 INVALID_TABLE (as it was when compiled in the service). */
function compiled<T extends { ok: true }>(result: T | NotCompiled): T {
  if (!result.ok)
    throw AppError.unprocessable(E.InvalidTable, `The stored table does not compile: ${result.compileError}`);
  return result;
}
