import { Inject, Injectable } from '@nestjs/common';
import { RuntimeInfoSettings } from '../../runtime-info';
import { effectiveLimits, LimitOverrides, parseTier, QuotaLimits, Tier } from '../domain/tiers';
import { QuotaRepository, TenantQuotaRecord } from '../persistence/quota-repository';
import { QuotaSettings } from '../quotas.settings';

export interface ResolvedQuota {
  tenantId: string;
  tier: Tier;
  overrides: LimitOverrides;
  limits: QuotaLimits;
  record: TenantQuotaRecord | null;
}

/** A tenant's tier and effective limits: its record if any, else the default tier. */
@Injectable()
export class TenantLimits {
  constructor(
    @Inject(QuotaRepository) private readonly repository: QuotaRepository,
    @Inject(QuotaSettings) private readonly settings: QuotaSettings,
    @Inject(RuntimeInfoSettings) private readonly runtimeInfo: RuntimeInfoSettings,
  ) {}

  /** `Quotas:DefaultTier`, else `ControlPlaneRuntimeInfo:Tier`, else Free. */
  get defaultTier(): Tier {
    return parseTier(this.settings.defaultTier) ?? parseTier(this.runtimeInfo.tier) ?? 'Free';
  }

  async resolve(tenantId: string): Promise<ResolvedQuota> {
    return this.describe(tenantId, await this.repository.find(tenantId));
  }

  describe(tenantId: string, record: TenantQuotaRecord | null): ResolvedQuota {
    const tier = record?.tier ?? this.defaultTier;
    const overrides = record?.overrides ?? {};
    return { tenantId, tier, overrides, limits: effectiveLimits(tier, overrides), record };
  }
}
