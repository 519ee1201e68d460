import { Injectable } from '@nestjs/common';
import { metrics } from '@opentelemetry/api';

/** What happened to execution audit entries on this node since it started. */
export interface ExecutionAuditCounts {
  /** Accepted into the in-memory buffer. */
  buffered: number;
  /** Inserted into the database by the flusher. */
  written: number;
  /** Written to a spill file because the database was unavailable. */
  spilled: number;
  /** Inserted into the database from spill files. */
  replayed: number;
  /** Already in the database when written or replayed again (idempotent retries). */
  duplicates: number;
  /** Refused by the database for their content; kept in a `.rejected` file next to the spill files. */
  rejected: number;
  /** Batch writes that failed and were retried (database unavailable). */
  failedBatches: number;
}

/**
 * Execution audit counters, exported through OpenTelemetry (meter `arbiter-control-plane`:
 * `execution.audit.buffered|written|spilled|replayed|duplicates|rejected|failed_batches` counters,
 * `execution.audit.buffer.size` and `execution.audit.waiting` gauges) and as JSON at
 * `GET /api/v1/control-plane/execution-audit/metrics`.
 */
@Injectable()
export class ExecutionAuditMetrics {
  private readonly meter = metrics.getMeter('arbiter-control-plane');
  private readonly counters = {
    buffered: this.meter.createCounter('execution.audit.buffered'),
    written: this.meter.createCounter('execution.audit.written'),
    spilled: this.meter.createCounter('execution.audit.spilled'),
    replayed: this.meter.createCounter('execution.audit.replayed'),
    duplicates: this.meter.createCounter('execution.audit.duplicates'),
    rejected: this.meter.createCounter('execution.audit.rejected'),
    failedBatches: this.meter.createCounter('execution.audit.failed_batches'),
  };
  readonly counts: ExecutionAuditCounts = {
    buffered: 0,
    written: 0,
    spilled: 0,
    replayed: 0,
    duplicates: 0,
    rejected: 0,
    failedBatches: 0,
  };
  private gauges: () => { bufferSize: number; waiting: number } = () => ({ bufferSize: 0, waiting: 0 });

  constructor() {
    this.meter
      .createObservableGauge('execution.audit.buffer.size', { description: 'Entries waiting in memory' })
      .addCallback((result) => result.observe(this.gauges().bufferSize));
    this.meter
      .createObservableGauge('execution.audit.waiting', {
        description: 'Callers waiting for room in a full buffer (back-pressure)',
      })
      .addCallback((result) => result.observe(this.gauges().waiting));
  }

  bindGauges(read: () => { bufferSize: number; waiting: number }): void {
    this.gauges = read;
  }

  add(counter: keyof ExecutionAuditCounts, value = 1): void {
    if (value <= 0) return;
    this.counts[counter] += value;
    this.counters[counter].add(value);
  }

  gaugeValues() {
    return this.gauges();
  }
}
