import {
  BeforeApplicationShutdown,
  Inject,
  Injectable,
  Logger,
  OnApplicationBootstrap,
  OnApplicationShutdown,
} from '@nestjs/common';
import { ExecutionAuditMetrics } from './execution-audit.metrics';
import { Fifo } from './fifo';
import { EncodedAuditEntry, encodeAuditEntry, executionIdOf } from './audit-row';
import { ExecutionAuditRepository } from './execution-audit.repository';
import { ExecutionAuditSettings } from './execution-audit.settings';
import { ExecutionAuditSink, ExecutionRecord } from './execution-record';
import { SpillFiles } from './spill-file';

interface Waiter {
  entry: EncodedAuditEntry;
  admitted: () => void;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Resolves true when `work` finished within `ms`, false otherwise (the work goes on). */
async function within(work: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  try {
    return await Promise.race([work.then(() => true as const), deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/** The database refused the content (SQLSTATE class 22 data exception, 23 integrity): retrying cannot help. */
function isContentError(error: unknown): boolean {
  const e = error as { code?: unknown; driverError?: { code?: unknown } };
  const code = e?.driverError?.code ?? e?.code;
  return typeof code === 'string' && /^2[23]/.test(code);
}

const text = (value: unknown) => typeof value === 'string' && value.length > 0;

/**
 * A record the executor built wrongly is a bug: refused at once, never half-written later. The execution id
 * (a UUID), the version (an `int`) and the instant (ISO-8601) are checked by `encodeAuditEntry` as it writes them.
 */
function assertRecord(e: ExecutionRecord): void {
  const valid =
    e &&
    typeof e.executionId === 'string' &&
    text(e.tenantId) &&
    text(e.workflowName) &&
    typeof e.correlationId === 'string' &&
    typeof e.executedAt === 'string' &&
    Number.isFinite(e.executionTimeMs) &&
    Array.isArray(e.rulesMatched) &&
    Array.isArray(e.errorCodes) &&
    text(e.status) &&
    text(e.arm) &&
    text(e.mode);
  if (!valid) throw new TypeError(`Invalid execution audit record: ${JSON.stringify(e)?.slice(0, 300)}`);
}

/**
 * The execution audit sink of the hot path: `record()` appends to a bounded in-memory buffer and
 * returns at once; a single writer inserts batches (one multi-row INSERT per tenant and batch) on a
 * timer, as soon as a batch is full, and on shutdown. Nothing is dropped silently:
 *
 * - database down: the batch stays at the head of the buffer and is retried with exponential back-off;
 * - buffer full: `record()` returns a promise that resolves once the entry is admitted (back-pressure),
 *   or with `ExecutionAudit:SpillWhenFull` while writes fail, the buffer goes to an NDJSON spill file;
 * - shutdown with the database still down after `ShutdownFlushMs`: the buffer is spilled;
 * - spill files are replayed at startup and once the database answers again (idempotent: the
 *   primary key holds the execution id with its tenant, workflow and instant, and duplicates are skipped);
 * - every step is counted (`ExecutionAuditMetrics`) and failures are logged.
 */
@Injectable()
export class BatchedExecutionAuditSink
  extends ExecutionAuditSink
  implements OnApplicationBootstrap, BeforeApplicationShutdown, OnApplicationShutdown
{
  private readonly logger = new Logger('ExecutionAudit');
  private readonly spill: SpillFiles;
  private buffer: EncodedAuditEntry[] = [];
  private readonly waiting = new Fifo<Waiter>();
  /** Entries ever put into / taken out of (written or spilled) the buffer. */
  private appended = 0;
  private removed = 0;
  private writing: Promise<void> | null = null;
  private replaying: Promise<void> | null = null;
  private replayDue = true;
  private failures = 0;
  private retryAt = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    @Inject(ExecutionAuditSettings) private readonly settings: ExecutionAuditSettings,
    @Inject(ExecutionAuditRepository) private readonly repository: ExecutionAuditRepository,
    @Inject(ExecutionAuditMetrics) private readonly metrics: ExecutionAuditMetrics,
  ) {
    super();
    this.spill = new SpillFiles(settings.spillDirectory);
    metrics.bindGauges(() => ({ bufferSize: this.buffer.length, waiting: this.waiting.length }));
  }

  record(record: ExecutionRecord): void | Promise<void> {
    assertRecord(record);
    const entry = encodeAuditEntry(record);
    if (this.waiting.length === 0 && this.buffer.length < this.settings.bufferSize) {
      this.append(entry);
      return;
    }
    const admitted = new Promise<void>((resolve) => this.waiting.push({ entry, admitted: resolve }));
    if (this.settings.spillWhenFull && this.failures > 0) void this.spillBuffer('buffer full');
    return admitted;
  }

  /** Writes every entry recorded so far (waiting for the database as long as it takes), then replays spill files. */
  async flush(): Promise<void> {
    await this.writeUpTo(this.appended + this.waiting.length);
    while (this.replayDue || this.replaying) {
      await this.sleepUntilRetry();
      await this.replay();
    }
  }

  /** Waits at most `ms` for the entries recorded so far to reach the database (read-your-writes for reads). */
  async settle(ms: number): Promise<void> {
    await within(this.writeUpTo(this.appended), ms);
  }

  /** Counters, buffer gauges and the writer's state, for the metrics route. */
  snapshot() {
    return {
      ...this.metrics.counts,
      ...this.metrics.gaugeValues(),
      bufferCapacity: this.settings.bufferSize,
      consecutiveFailures: this.failures,
      spillDirectory: this.spill.directory,
    };
  }

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => this.tick(), this.settings.flushIntervalMs);
    this.timer.unref();
  }

  /** Before the HTTP server and the database close: write everything (or spill it). */
  async beforeApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    await this.drain(this.settings.shutdownFlushMs);
  }

  /** Entries recorded while in-flight requests finished; spilled if the database is gone already. */
  async onApplicationShutdown(): Promise<void> {
    if (this.buffer.length || this.waiting.length)
      await this.drain(Math.min(1_000, this.settings.shutdownFlushMs));
  }

  private tick(): void {
    this.startWriting();
    if (this.replayDue && Date.now() >= this.retryAt) void this.replay();
  }

  private append(entry: EncodedAuditEntry): void {
    this.buffer.push(entry);
    this.appended++;
    this.metrics.add('buffered');
    if (this.buffer.length >= this.settings.batchSize) this.startWriting();
  }

  /** Admits waiting callers in arrival order while there is room (`all`: regardless of room, on shutdown). */
  private admitWaiting(all = false): void {
    while (this.waiting.length && (all || this.buffer.length < this.settings.bufferSize)) {
      const waiter = this.waiting.shift()!;
      this.append(waiter.entry);
      waiter.admitted();
    }
  }

  private startWriting(): Promise<void> | null {
    if (!this.writing && this.buffer.length > 0 && Date.now() >= this.retryAt)
      this.writing = this.writeBuffer().finally(() => (this.writing = null));
    return this.writing;
  }

  private async writeUpTo(target: number): Promise<void> {
    for (;;) {
      this.admitWaiting();
      if (this.removed >= target) return;
      await (this.startWriting() ?? this.sleepUntilRetry());
    }
  }

  private async sleepUntilRetry(): Promise<void> {
    await sleep(Math.max(1, Math.min(this.retryAt - Date.now(), this.settings.flushIntervalMs)));
  }

  /** The single writer: batches from the head of the buffer until it is empty or a write fails. */
  private async writeBuffer(): Promise<void> {
    const queue = this.buffer; // replaced (not emptied) by a spill: this pass then stops
    try {
      while (queue === this.buffer && queue.length > 0) {
        const batch = queue.slice(0, this.settings.batchSize);
        await this.write(batch, 'written');
        queue.splice(0, batch.length);
        for (const entry of batch) entry.release();
        this.removed += batch.length;
        this.admitWaiting();
      }
      this.succeeded();
    } catch (error) {
      this.failed(error);
    }
  }

  /**
   * Inserts a batch. A replayed batch, and any batch after a failed write (whose commit may have happened
   * before the connection broke), may be stored already: the repository then skips stored entries.
   */
  private async write(batch: EncodedAuditEntry[], counter: 'written' | 'replayed'): Promise<void> {
    try {
      const inserted = await this.repository.insert(batch, counter === 'replayed' || this.failures > 0);
      this.metrics.add(counter, inserted);
      this.metrics.add('duplicates', batch.length - inserted);
    } catch (error) {
      if (!isContentError(error)) throw error;
      if (batch.length > 1) {
        for (const entry of batch) await this.write([entry], counter); // isolates the refused entries
        return;
      }
      await this.spill.reject(batch.map((e) => e.row));
      this.metrics.add('rejected');
      this.logger.error({
        msg: 'Execution audit entry refused by the database; kept in the .rejected file',
        executionId: executionIdOf(batch[0]),
        error: (error as Error).message,
      });
    }
  }

  private succeeded(): void {
    if (this.failures === 0) return;
    this.logger.log({ msg: 'Execution audit writes recovered', failedAttempts: this.failures });
    this.failures = 0;
    this.retryAt = 0;
  }

  private failed(error: unknown): void {
    this.failures++;
    this.metrics.add('failedBatches');
    const delay = Math.min(
      this.settings.maxRetryDelayMs,
      this.settings.retryDelayMs * 2 ** Math.min(this.failures - 1, 20),
    );
    this.retryAt = Date.now() + delay;
    if (this.failures === 1 || this.failures % 10 === 0)
      this.logger.warn({
        msg: 'Execution audit write failed; entries stay buffered and are retried',
        error: (error as Error)?.message,
        consecutiveFailures: this.failures,
        buffered: this.buffer.length,
        waiting: this.waiting.length,
        retryInMs: delay,
      });
    if (this.settings.spillWhenFull && this.waiting.length > 0) void this.spillBuffer('buffer full');
  }

  /** Moves the whole buffer to a spill file (kept in memory if even that fails). */
  private async spillBuffer(reason: string): Promise<void> {
    const spilled = this.buffer;
    if (spilled.length === 0) return;
    this.buffer = [];
    try {
      const file = await this.spill.append(spilled);
      this.removed += spilled.length;
      this.metrics.add('spilled', spilled.length);
      this.replayDue = true;
      this.logger.warn({
        msg: `Execution audit entries spilled to a file (${reason}); replayed when the database is back`,
        entries: spilled.length,
        file,
      });
    } catch (error) {
      this.buffer = spilled.concat(this.buffer);
      this.logger.error({
        msg: 'Execution audit spill failed; entries stay in memory',
        entries: spilled.length,
        error: (error as Error).message,
      });
    }
    this.admitWaiting();
  }

  private async drain(ms: number): Promise<void> {
    this.admitWaiting(true);
    if (await within(this.writeUpTo(this.appended), ms)) return;
    this.admitWaiting(true);
    await this.spillBuffer('shutdown while the database is unavailable');
  }

  private replay(): Promise<void> {
    return (this.replaying ??= this.replayFiles().finally(() => (this.replaying = null)));
  }

  /** Inserts the entries of every spill file of the folder, then deletes the file. */
  private async replayFiles(): Promise<void> {
    this.replayDue = false;
    const files = await this.spill.claimAll();
    let entries = 0;
    for (const [index, file] of files.entries()) {
      try {
        const { records, unreadable } = await this.spill.read(file);
        if (unreadable.length) {
          await this.spill.reject(unreadable);
          this.metrics.add('rejected', unreadable.length);
          this.logger.error({ msg: 'Unreadable lines in a spill file', file, lines: unreadable.length });
        }
        for (let i = 0; i < records.length; i += this.settings.batchSize) {
          const batch = records.slice(i, i + this.settings.batchSize);
          await this.write(batch, 'replayed');
          for (const entry of batch) entry.release();
        }
        await this.spill.remove(file);
        entries += records.length;
      } catch (error) {
        for (const rest of files.slice(index)) await this.spill.release(rest);
        this.replayDue = true;
        this.failed(error);
        return;
      }
    }
    if (files.length) {
      this.succeeded();
      this.logger.log({ msg: 'Execution audit spill files replayed', files: files.length, entries });
    }
  }
}
