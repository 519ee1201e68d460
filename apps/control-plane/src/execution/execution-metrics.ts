import { Injectable } from '@nestjs/common';
import { metrics } from '@opentelemetry/api';

/**
 * Execution metrics through OpenTelemetry (meter `arbiter-control-plane`): `rule.engine.errors`
 * (counter; attributes `workflow`, `version`, `status` = `canary` | `active`), `rule.engine.executions`
 * (counter; `workflow`, `arm`, `mode`) and `rule.engine.duration` (histogram, ms); also kept as totals
 * for `GET /api/v1/control-plane/execution/metrics`.
 */
@Injectable()
export class ExecutionMetrics {
  private readonly meter = metrics.getMeter('arbiter-control-plane');
  private readonly errorsCounter = this.meter.createCounter('rule.engine.errors', {
    description: 'Rule executions that ended with errors',
  });
  private readonly executionsCounter = this.meter.createCounter('rule.engine.executions', {
    description: 'Rule executions',
  });
  private readonly durationHistogram = this.meter.createHistogram('rule.engine.duration', {
    description: 'Rule execution time',
    unit: 'ms',
  });
  executions = 0;
  errors = 0;
  shadowRuns = 0;
  shadowDifferences = 0;
  readonly byArm: Record<string, { executions: number; errors: number }> = {};

  executed(workflow: string, version: number | null, arm: string, mode: string, ms: number, failed: boolean) {
    this.executions++;
    const tally = (this.byArm[arm] ??= { executions: 0, errors: 0 });
    tally.executions++;
    this.executionsCounter.add(1, { workflow, arm, mode });
    this.durationHistogram.record(ms, { workflow, arm });
    if (failed) {
      this.errors++;
      tally.errors++;
      this.errorsCounter.add(1, {
        workflow,
        version: String(version ?? ''),
        status: arm === 'canary' ? 'canary' : 'active',
      });
    }
  }

  shadowed(differences: number) {
    this.shadowRuns++;
    if (differences > 0) this.shadowDifferences++;
  }
}
