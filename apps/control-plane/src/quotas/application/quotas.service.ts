import { EventBus, RequestContext } from '@arbiter/platform';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { LimitOverrides, parseTier, TIER_PRESETS } from '../domain/tiers';
import { windowEnd, windowStart } from '../domain/windows';
import { QuotaRepository } from '../persistence/quota-repository';
import { unknownTier } from './quota-errors';
import { QUOTA_CHANGED_SUBJECT, QuotaChangedEvent } from './quota-events';
import { QuotaGate } from './quota-gate';
import { ResolvedQuota, TenantLimits } from './tenant-limits';

/** `GET|PUT …/quotas/limits` and `POST …/quotas/upgrade` body (the spec's TenantQuota, fields ours). */
export function tenantQuotaView(q: ResolvedQuota) {
  return {
    tenantId: q.tenantId,
    tier: q.tier,
    ...q.limits,
    preset: TIER_PRESETS[q.tier],
    overrides: q.overrides,
    updatedAt: q.record?.updatedAt.toISOString() ?? null,
    updatedBy: q.record?.updatedBy ?? null,
  };
}

/** Tenant quotas: limits (tier preset, then explicit overrides), tier changes and usage. */
@Injectable()
export class QuotasService {
  private readonly logger = new Logger('Quotas');

  constructor(
    @Inject(QuotaRepository) private readonly repository: QuotaRepository,
    @Inject(TenantLimits) private readonly tenantLimits: TenantLimits,
    @Inject(QuotaGate) private readonly gate: QuotaGate,
    @Inject(EventBus) private readonly bus: EventBus,
  ) {}

  async limits(tenantId: string) {
    return tenantQuotaView(await this.tenantLimits.resolve(tenantId));
  }

  /** Replaces the explicit overrides (a limit left out follows the tier again); the tier stays. */
  async setLimits(tenantId: string, overrides: LimitOverrides) {
    const current = await this.repository.find(tenantId);
    return this.store(tenantId, current?.tier ?? null, overrides);
  }

  /** Puts the tenant on `tier`'s preset: the explicit overrides are cleared. */
  async upgrade(tenantId: string, tierName: unknown) {
    const tier = parseTier(tierName);
    if (!tier) throw unknownTier(tierName);
    return this.store(tenantId, tier, {});
  }

  /**
   * Counts of the current UTC minute and day (evaluations reserved by replicas count as used), and
   * the concurrency slots in use as reported by the live leases at their last renewal.
   */
  async usage(tenantId: string) {
    const now = Date.now();
    const quota = await this.tenantLimits.resolve(tenantId);
    const counts = await this.repository.usage(tenantId, windowStart('minute', now), windowStart('day', now));
    const window = (used: number, limit: number | null, kind: 'minute' | 'day') => ({
      used,
      limit,
      remaining: limit === null ? null : Math.max(0, limit - used),
      resetsAt: new Date(windowEnd(kind, now)).toISOString(),
    });
    return {
      tenantId,
      tier: quota.tier,
      evaluations: {
        minute: window(counts.minuteUsed, quota.limits.maxEvaluationsPerMinute, 'minute'),
        day: window(counts.dayUsed, quota.limits.maxEvaluationsPerDay, 'day'),
      },
      concurrency: {
        inUse: counts.inUse,
        leased: counts.leased,
        limit: quota.limits.maxConcurrentExecutions,
      },
    };
  }

  private async store(tenantId: string, tier: ResolvedQuota['tier'] | null, overrides: LimitOverrides) {
    const record = { tenantId, tier, overrides, updatedAt: new Date(), updatedBy: RequestContext.actor() };
    await this.repository.save(record);
    const resolved = this.tenantLimits.describe(tenantId, record);
    await this.gate.refresh(tenantId);
    const event: QuotaChangedEvent = {
      tenantId,
      tier: resolved.tier,
      occurredAt: record.updatedAt.toISOString(),
    };
    await this.bus.publish(QUOTA_CHANGED_SUBJECT, event, { tenantId }).catch((error) =>
      this.logger.warn({
        msg: 'quota change not announced (replicas reload within Quotas:LimitsCacheMs)',
        err: String(error),
      }),
    );
    return tenantQuotaView(resolved);
  }
}
