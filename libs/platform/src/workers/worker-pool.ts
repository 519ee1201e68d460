/**
 * A pool of worker threads (piscina) for work whose cost a user controls: dry-runs of unsaved rule
 * sets, analysis of large tables, ad-hoc FEEL. Each task has a deadline; a task still running at its
 * deadline has its worker terminated (the thread is killed, whatever it is doing: a FEEL loop, a
 * QuickJS script, an allocation loop), so a runaway task costs the service's event loop nothing. A worker
 * that exhausts its heap (`memoryMb`) dies alone and the task fails with `WorkerOutOfMemory`.
 */
import { Piscina } from 'piscina';

export interface WorkerPoolOptions {
  /** Absolute path of the task module (CommonJS; each task is a named export). */
  filename: string;
  /** Threads at most (default 2). */
  maxThreads?: number;
  /** Threads kept running, idle or not (default 0). */
  minThreads?: number;
  /** Tasks waiting for a thread at most; past it a task fails at once with `WorkerPoolBusy` (default 64). */
  maxQueue?: number;
  /** Old-generation heap of one worker, in MiB (default 512). */
  memoryMb?: number;
  /** An idle thread is stopped after this many milliseconds (default 30 s). */
  idleTimeoutMs?: number;
}

/** The task ran past its deadline; its worker was terminated. */
export class WorkerTaskTimeout extends Error {
  readonly code = 'WORKER_DEADLINE';
  constructor(readonly deadlineMs: number) {
    super(`the task ran past its ${deadlineMs} ms limit and its worker was stopped`);
  }
}

/** The task's worker ran out of its heap (`memoryMb`) and was stopped. */
export class WorkerOutOfMemory extends Error {
  readonly code = 'WORKER_OUT_OF_MEMORY';
  constructor(readonly memoryMb: number) {
    super(`the task exhausted its worker's ${memoryMb} MiB heap and its worker was stopped`);
  }
}

/** Every thread is busy and the queue is full. */
export class WorkerPoolBusy extends Error {
  readonly code = 'WORKER_POOL_BUSY';
  constructor() {
    super('every worker is busy; try again shortly');
  }
}

export class WorkerPool {
  private readonly pool: Piscina;
  private readonly memoryMb: number;
  private closed = false;
  /** tasks run, and workers terminated at a deadline (metrics, tests) */
  tasks = 0;
  terminated = 0;

  constructor(options: WorkerPoolOptions) {
    this.memoryMb = options.memoryMb ?? 512;
    const maxThreads = Math.max(1, options.maxThreads ?? 2);
    this.pool = new Piscina({
      filename: options.filename,
      minThreads: Math.min(maxThreads, options.minThreads ?? 0),
      maxThreads,
      maxQueue: options.maxQueue ?? 64,
      idleTimeout: options.idleTimeoutMs ?? 30_000,
      resourceLimits: { maxOldGenerationSizeMb: this.memoryMb },
      // the service's own argv/env flags (--require of telemetry, inspector) are not for the workers
      execArgv: [],
    });
    // a worker's own failure surfaces as its task's rejection
    this.pool.on('error', () => undefined);
  }

  /**
   * Runs export `name` of the task module with `input` (structured-cloned; the buffers of `transfer`
   * moved, not copied), stopped after `deadlineMs`.
   */
  run<T>(name: string, input: unknown, deadlineMs: number, transfer?: ArrayBuffer[]): Promise<T> {
    if (this.closed) return Promise.reject(new Error('the worker pool is closed'));
    this.tasks++;
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      this.terminated++;
      controller.abort();
    }, deadlineMs);
    const options = {
      name,
      signal: controller.signal,
      ...(transfer?.length ? { transferList: transfer } : {}),
    };
    return (this.pool.run(input, options) as Promise<T>).then(
      (value) => {
        clearTimeout(timer);
        return value;
      },
      (error: Error & { code?: string }) => {
        clearTimeout(timer);
        if (timedOut) throw new WorkerTaskTimeout(deadlineMs);
        if (error?.code === 'ERR_WORKER_OUT_OF_MEMORY') throw new WorkerOutOfMemory(this.memoryMb);
        if (/queue is at limit/i.test(error?.message ?? '')) throw new WorkerPoolBusy();
        throw error;
      },
    );
  }

  get threads(): number {
    return this.pool.threads.length;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.pool.destroy();
  }
}
