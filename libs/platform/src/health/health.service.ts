import { Inject, Injectable, Optional } from '@nestjs/common';
import { Database } from '../database/database';
import { EventBus } from '../events/event-bus';

export interface DependencyStatus {
  status: 'up' | 'down';
  [detail: string]: unknown;
}

/** An extra dependency an app reports on /health (e.g. the experience service's stores). */
export interface HealthIndicator {
  readonly name: string;
  check(): Promise<DependencyStatus>;
  /**
   * Also reported at the top level of the report under `name` (a spec that wants e.g. the experience
   * service's `vectordb: { status }` next to `status`): the value this returns for the check's result.
   */
  topLevel?(result: DependencyStatus): unknown;
}

export const HEALTH_INDICATORS = Symbol('arbiter:health-indicators');

export interface HealthReport {
  status: 'ok' | 'degraded';
  service: string;
  checks: Record<string, DependencyStatus>;
  uptimeSeconds: number;
  timestamp: string;
  /** Top-level entries of indicators with `topLevel`. */
  [indicator: string]: unknown;
}

export const SERVICE_NAME = Symbol('arbiter:service-name');

@Injectable()
export class HealthService {
  constructor(
    @Inject(SERVICE_NAME) private readonly service: string,
    @Optional() @Inject(Database) private readonly database?: Database,
    @Optional() @Inject(EventBus) private readonly bus?: EventBus,
    @Optional() @Inject(HEALTH_INDICATORS) private readonly indicators: HealthIndicator[] = [],
  ) {}

  async report(): Promise<HealthReport> {
    const checks: Record<string, DependencyStatus> = {};
    const work: Promise<void>[] = [];
    if (this.database) {
      const db = this.database;
      work.push(
        db
          .ping()
          .then((up) => void (checks.database = { status: up ? 'up' : 'down', target: db.description })),
      );
    }
    if (this.bus) {
      const s = this.bus.status();
      checks.bus = {
        status: s.connected ? 'up' : 'down',
        kind: s.kind,
        ...(s.detail ? { detail: s.detail } : {}),
      };
    }
    for (const indicator of this.indicators ?? []) {
      work.push(
        indicator
          .check()
          .catch((error) => ({ status: 'down' as const, detail: String(error) }))
          .then((result) => void (checks[indicator.name] = result)),
      );
    }
    await Promise.all(work);
    const down = Object.values(checks).some((c) => c.status === 'down');
    const topLevel: Record<string, unknown> = {};
    for (const indicator of this.indicators ?? []) {
      if (indicator.topLevel) topLevel[indicator.name] = indicator.topLevel(checks[indicator.name]);
    }
    return {
      status: down ? 'degraded' : 'ok',
      ...topLevel,
      service: this.service,
      checks,
      uptimeSeconds: Math.round(process.uptime()),
      timestamp: new Date().toISOString(),
    };
  }
}
