import { WorkerPool } from '@arbiter/platform';
import { AUTHORING_TASKS_FILE } from '@arbiter/rule-engine';
import { Inject, Injectable, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { RuleEngineSettings } from './execution.settings';

/**
 * The worker threads of dry-runs of unsaved rule sets (`RuleEngineOptions:DryRunWorkers:*`): one thread
 * is started (and loads the engine) when the service starts, so a dry-run does not pay for a thread's
 * start; more start on demand up to `MaxThreads`. Stopped with the module. A task past its limit has its
 * thread terminated (and a fresh one replaces it).
 */
@Injectable()
export class DryRunWorkers implements OnApplicationBootstrap, OnModuleDestroy {
  private pool: WorkerPool | null = null;

  constructor(@Inject(RuleEngineSettings) private readonly settings: RuleEngineSettings) {}

  get workers(): WorkerPool {
    return (this.pool ??= new WorkerPool({
      filename: AUTHORING_TASKS_FILE,
      maxThreads: this.settings.dryRunWorkerThreads,
      memoryMb: this.settings.dryRunWorkerMemoryMb,
      minThreads: 1,
    }));
  }

  onApplicationBootstrap(): void {
    // load the engine in the first thread now (not awaited: the service does not wait for it)
    this.workers.run('warmUp', null, 60_000).catch(() => undefined);
  }

  async onModuleDestroy(): Promise<void> {
    await this.pool?.close();
  }
}
