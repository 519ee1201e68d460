import { UnitOfWork } from '@arbiter/platform';
import { Inject, Injectable } from '@nestjs/common';
import { TenantQuotaEntity } from '../entities';
import {
  LeaseRequest,
  QuotaRepository,
  Reservation,
  TenantQuotaRecord,
  UsageCounts,
  WindowLimit,
} from './quota-repository';

const iso = (epochMs: number) => new Date(epochMs).toISOString();

/** QuotaRepository on PostgreSQL / PGlite: every call is a unit of work of the tenant (row-level security). */
@Injectable()
export class PgQuotaRepository extends QuotaRepository {
  constructor(@Inject(UnitOfWork) private readonly uow: UnitOfWork) {
    super();
  }

  find(tenantId: string): Promise<TenantQuotaRecord | null> {
    return this.uow.run((m) => m.findOneBy(TenantQuotaEntity, { tenantId }), { tenantId });
  }

  async save(record: TenantQuotaRecord): Promise<void> {
    await this.uow.run((m) => m.upsert(TenantQuotaEntity, record, ['tenantId']), {
      tenantId: record.tenantId,
    });
  }

  async reserveEvaluations(
    tenantId: string,
    wanted: number,
    minute: WindowLimit,
    day: WindowLimit,
  ): Promise<Reservation> {
    const [row] = await this.uow.run(
      (m) =>
        m.query(
          `SELECT granted, minute_used, day_used FROM quota_reserve_evaluations($1, $2, $3, $4, $5, $6)`,
          [tenantId, wanted, iso(minute.start), minute.limit, iso(day.start), day.limit],
        ),
      { tenantId },
    );
    return {
      granted: Number(row.granted),
      minuteUsed: Number(row.minute_used),
      dayUsed: Number(row.day_used),
    };
  }

  async leaseSlots(tenantId: string, r: LeaseRequest): Promise<number> {
    const [row] = await this.uow.run(
      (m) =>
        m.query(`SELECT slots FROM quota_lease_slots($1, $2, $3, $4, $5, $6)`, [
          tenantId,
          r.replicaId,
          r.wanted,
          r.inUse,
          r.limit,
          r.ttlMs,
        ]),
      { tenantId },
    );
    return Number(row.slots);
  }

  async dropLease(tenantId: string, replicaId: string): Promise<void> {
    await this.uow.run(
      (m) =>
        m.query(`DELETE FROM quota_concurrency_leases WHERE tenant_id = $1 AND replica_id = $2`, [
          tenantId,
          replicaId,
        ]),
      { tenantId },
    );
  }

  usage(tenantId: string, minuteStart: number, dayStart: number): Promise<UsageCounts> {
    return this.uow.run(
      async (m) => {
        const windows: { window_kind: string; used: string }[] = await m.query(
          `SELECT window_kind, used FROM quota_usage_windows WHERE tenant_id = $1
             AND ((window_kind = 'minute' AND window_start = $2) OR (window_kind = 'day' AND window_start = $3))`,
          [tenantId, iso(minuteStart), iso(dayStart)],
        );
        const [leases] = await m.query(
          `SELECT COALESCE(sum(in_use), 0) AS in_use, COALESCE(sum(slots), 0) AS leased
             FROM quota_concurrency_leases WHERE tenant_id = $1 AND expires_at > now()`,
          [tenantId],
        );
        const used = (kind: string) => Number(windows.find((w) => w.window_kind === kind)?.used ?? 0);
        return {
          minuteUsed: used('minute'),
          dayUsed: used('day'),
          inUse: Number(leases.in_use),
          leased: Number(leases.leased),
        };
      },
      { tenantId },
    );
  }
}
