import { Database } from '@arbiter/platform';
import { Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { UsageMetric, UsageMetricRepository } from './persistence/license-store.repository';
import { UsageBatch } from './usage-batch';

/** Rows written per statement. */
const BATCH = 1000;
/** Rows held while the database is unreachable; beyond that the oldest batches are dropped, with an error log. */
const MAX_PENDING = 100_000;

/**
 * The usage metric of every validate call (`LicenseKey, ActionType, IsValid, RecordedAt`), off the
 * request path: buffered compactly (`UsageBatch`: a row is two numbers, nothing a young-generation
 * collection must copy; a flush joins ready strings), written in multi-row inserts every `flushMs` (and when `BATCH` rows wait), and
 * flushed on shutdown. A failed write keeps the rows for the next flush; none is dropped silently.
 */
@Injectable()
export class UsageRecorder implements OnApplicationShutdown {
  private readonly logger = new Logger('LicenseUsage');
  /** Batches of at most `BATCH` rows, oldest first; the last one is being filled. */
  private pending: UsageBatch[] = [];
  private flushing: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  flushMs = 1000;

  constructor(
    private readonly database: Database,
    private readonly metrics: UsageMetricRepository,
  ) {}

  record(metric: UsageMetric): void {
    let batch = this.pending[this.pending.length - 1];
    if (!batch || batch.full) this.pending.push((batch = new UsageBatch(BATCH)));
    batch.add(metric);
    if (batch.full) void this.flush();
    else if (!this.timer) {
      this.timer = setTimeout(() => {
        this.timer = undefined;
        void this.flush();
      }, this.flushMs);
      this.timer.unref();
    }
  }

  /** Writes what is pending (waits for a flush under way first). */
  async flush(): Promise<void> {
    while (this.flushing) await this.flushing;
    if (!this.pending.length) return;
    const batch = this.pending;
    this.pending = [];
    this.flushing = (async () => {
      try {
        while (batch.length) {
          await this.metrics.insertMany(this.database, batch[0]);
          batch.shift();
        }
      } catch (error) {
        this.pending = batch.concat(this.pending);
        let held = this.pending.reduce((n, b) => n + b.count, 0);
        let dropped = 0;
        while (held > MAX_PENDING && this.pending.length > 1) {
          const oldest = this.pending.shift()!;
          held -= oldest.count;
          dropped += oldest.count;
        }
        if (dropped) this.logger.error(`dropped ${dropped} usage metrics: the database is unreachable`);
        this.logger.warn(`usage metrics not written yet (${(error as Error).message}); retrying`);
        if (!this.timer) {
          this.timer = setTimeout(() => {
            this.timer = undefined;
            void this.flush();
          }, this.flushMs);
          this.timer.unref();
        }
      } finally {
        this.flushing = undefined;
      }
    })();
    await this.flushing;
  }

  async onApplicationShutdown(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    await this.flush().catch(() => undefined);
  }
}
