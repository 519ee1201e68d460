import type { LimitOverrides, Tier } from '../domain/tiers';

export interface TenantQuotaRecord {
  tenantId: string;
  /** null: follows the default tier. */
  tier: Tier | null;
  overrides: LimitOverrides;
  updatedAt: Date;
  updatedBy: string;
}

export interface WindowLimit {
  /** Epoch ms of the window's start. */
  start: number;
  /** null: unlimited (the window is still counted). */
  limit: number | null;
}

export interface Reservation {
  granted: number;
  /** Counted in each window after this reservation. */
  minuteUsed: number;
  dayUsed: number;
}

export interface LeaseRequest {
  replicaId: string;
  /** Slots this replica wants to hold in total. */
  wanted: number;
  /** Slots in use on this replica right now (reported for the usage endpoint). */
  inUse: number;
  /** null: unlimited. */
  limit: number | null;
  ttlMs: number;
}

export interface UsageCounts {
  minuteUsed: number;
  dayUsed: number;
  /** Sums over live (unexpired) leases. */
  inUse: number;
  leased: number;
}

/** Shared quota state of the tenants, in the control plane's database. Each call is one transaction. */
export abstract class QuotaRepository {
  abstract find(tenantId: string): Promise<TenantQuotaRecord | null>;
  abstract save(record: TenantQuotaRecord): Promise<void>;
  /** Atomically counts up to `wanted` evaluations in both windows, never past a limit. */
  abstract reserveEvaluations(
    tenantId: string,
    wanted: number,
    minute: WindowLimit,
    day: WindowLimit,
  ): Promise<Reservation>;
  /** Sets the replica's lease to as many of the wanted slots as the live leases leave; returns the slots granted. */
  abstract leaseSlots(tenantId: string, request: LeaseRequest): Promise<number>;
  abstract dropLease(tenantId: string, replicaId: string): Promise<void>;
  abstract usage(tenantId: string, minuteStart: number, dayStart: number): Promise<UsageCounts>;
}
