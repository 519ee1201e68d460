import { UnitOfWork } from '@arbiter/platform';
import { Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { UsageMetric, UsageMetricRepository } from './persistence/license-store.repository';

/** Rows written per statement. */
const BATCH = 1000;
/** Rows held while the database is unreachable; beyond that the oldest are dropped, with an error log. */
const MAX_PENDING = 100_000;

/**
 * The usage metric of every validate call (`LicenseKey, ActionType, IsValid, RecordedAt`), off the
 * request path: buffered, written in multi-row inserts every `flushMs` (and when `BATCH` rows wait), and
 * flushed on shutdown. A failed write keeps the rows for the next flush; none is dropped silently.
 */
@Injectable()
export class UsageRecorder implements OnApplicationShutdown {
  private readonly logger = new Logger('LicenseUsage');
  private pending: UsageMetric[] = [];
  private flushing: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  flushMs = 1000;

  constructor(
    private readonly uow: UnitOfWork,
    private readonly metrics: UsageMetricRepository,
  ) {}

  record(metric: UsageMetric): void {
    this.pending.push(metric);
    if (this.pending.length >= BATCH) void this.flush();
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
        for (let i = 0; i < batch.length; i += BATCH) {
          const slice = batch.slice(i, i + BATCH);
          await this.uow.run((m) => this.metrics.insertMany(m, slice));
        }
      } catch (error) {
        this.pending = batch.concat(this.pending);
        if (this.pending.length > MAX_PENDING) {
          const dropped = this.pending.length - MAX_PENDING;
          this.pending = this.pending.slice(dropped);
          this.logger.error(`dropped ${dropped} usage metrics: the database is unreachable`);
        }
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
