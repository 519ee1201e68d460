import { ConfigKey, ConfigurationError, StartupRules } from '@arbiter/platform';
import { IsBoolean, IsIn, IsInt, Max, Min } from 'class-validator';
import { TIERS } from './domain/tiers';

/** `Quotas:*` (ours; the spec leaves quota configuration open). */
export class QuotaSettings implements StartupRules {
  /** false: the gate admits every execution (the routes still work). */
  @ConfigKey('Quotas:Enabled')
  @IsBoolean()
  enabled = true;

  /** Tier of a tenant that has none assigned; empty: `ControlPlaneRuntimeInfo:Tier`. */
  @ConfigKey('Quotas:DefaultTier')
  @IsIn(['', ...TIERS])
  defaultTier = '';

  /** A replica's concurrency lease lives this long unless renewed (a dead replica's slots come back after it). */
  @ConfigKey('Quotas:LeaseTtlMs', 'number')
  @IsInt()
  @Min(1000)
  leaseTtlMs = 15_000;

  /** Lease renewal (heartbeat), hand-back of idle slots and flush of unlimited tenants' usage counts. */
  @ConfigKey('Quotas:SyncIntervalMs', 'number')
  @IsInt()
  @Min(50)
  syncIntervalMs = 5_000;

  /** How long a replica trusts the limits it read (changes on this or, over the bus, other replicas apply at once). */
  @ConfigKey('Quotas:LimitsCacheMs', 'number')
  @IsInt()
  @Min(0)
  limitsCacheMs = 30_000;

  /** Largest number of evaluations a replica reserves from the database in one statement. */
  @ConfigKey('Quotas:MaxReservationChunk', 'number')
  @IsInt()
  @Min(1)
  @Max(1_000_000)
  maxReservationChunk = 10_000;

  assertStartupRules(): void {
    if (this.syncIntervalMs * 2 > this.leaseTtlMs)
      throw new ConfigurationError(
        `Quotas:SyncIntervalMs (${this.syncIntervalMs}) must be at most half of Quotas:LeaseTtlMs (${this.leaseTtlMs}), so a live replica renews its lease before it expires`,
        ['Quotas:SyncIntervalMs', 'Quotas:LeaseTtlMs'],
      );
  }
}

/** Settings classes (`@ConfigKey`) of this module; registered in CONTROL_PLANE_SETTINGS. */
export const QUOTA_SETTINGS: (new () => object)[] = [QuotaSettings];
