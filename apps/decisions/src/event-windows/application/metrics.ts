import { Injectable } from '@nestjs/common';
import { metrics } from '@opentelemetry/api';

/**
 * The spec's CEP metrics through OpenTelemetry (meter `arbiter-decisions`): `cep.events.processed`
 * (counter; attributes `mode` = `simulate` | `live`, `status` = `accepted` | `late`),
 * `cep.window.evaluations` (counter: windows reported, per event or at close), `cep.window.event.count`
 * (histogram: events in each reported window), `cep.config.reads` and `cep.config.writes` (counters).
 * Also kept as totals on this replica (tests read them).
 */
@Injectable()
export class EventWindowMetrics {
  private readonly meter = metrics.getMeter('arbiter-decisions');
  private readonly processedCounter = this.meter.createCounter('cep.events.processed', {
    description: 'Events run through event windows',
  });
  private readonly evaluationsCounter = this.meter.createCounter('cep.window.evaluations', {
    description: 'Windows evaluated (reported per event or at close)',
  });
  private readonly eventCountHistogram = this.meter.createHistogram('cep.window.event.count', {
    description: 'Events in an evaluated window',
  });
  private readonly readsCounter = this.meter.createCounter('cep.config.reads', {
    description: 'Event-window configuration reads',
  });
  private readonly writesCounter = this.meter.createCounter('cep.config.writes', {
    description: 'Event-window configuration writes',
  });
  readonly totals = { processed: 0, late: 0, evaluations: 0, reads: 0, writes: 0 };

  processed(mode: 'simulate' | 'live' | 'replay', accepted: number, late: number) {
    this.totals.processed += accepted + late;
    this.totals.late += late;
    if (accepted) this.processedCounter.add(accepted, { mode, status: 'accepted' });
    if (late) this.processedCounter.add(late, { mode, status: 'late' });
  }

  evaluated(mode: 'simulate' | 'live' | 'replay', eventCount: number) {
    this.totals.evaluations++;
    this.evaluationsCounter.add(1, { mode });
    this.eventCountHistogram.record(eventCount, { mode });
  }

  read() {
    this.totals.reads++;
    this.readsCounter.add(1);
  }

  wrote(change: 'created' | 'updated' | 'deleted') {
    this.totals.writes++;
    this.writesCounter.add(1, { change });
  }
}
