import { RequestContext, UnitOfWork } from '@arbiter/platform';
import type { EntityManager } from 'typeorm';
import {
  AuditRecord,
  DecisionTableRepository,
} from '../src/decision-tables/persistence/decision-table.repository';
import {
  DecisionTableAuditEntity,
  DecisionTableEntity,
  DecisionTableVersionEntity,
} from '../src/decision-tables/persistence/entities';

/**
 * The repository in memory, for the application services' unit tests: rows of the ambient tenant only
 * (as row-level security gives them), a counter of reads to tell a cache hit from a database read.
 */
export class InMemoryDecisionTableRepository extends DecisionTableRepository {
  readonly tables: DecisionTableEntity[] = [];
  readonly versionRows: DecisionTableVersionEntity[] = [];
  readonly auditRows: DecisionTableAuditEntity[] = [];
  reads = 0;

  private mine<T extends { tenantId: string }>(rows: T[]): T[] {
    this.reads++;
    return rows.filter((r) => r.tenantId === RequestContext.tenantId());
  }

  async list(_m: EntityManager, offset: number, limit: number) {
    return this.mine(this.tables)
      .sort((a, b) => a.name.localeCompare(b.name))
      .slice(offset, offset + limit);
  }
  async find(_m: EntityManager, id: string) {
    return this.mine(this.tables).find((t) => t.id === id) ?? null;
  }
  async findByName(_m: EntityManager, name: string) {
    return this.mine(this.tables).find((t) => t.name === name) ?? null;
  }
  async insertTable(_m: EntityManager, table: DecisionTableEntity) {
    this.tables.push({ ...table });
  }
  async updateTable(_m: EntityManager, table: DecisionTableEntity) {
    Object.assign(
      this.tables.find((t) => t.id === table.id)!,
      table,
    );
  }
  async advanceVersion(_m: EntityManager, id: string, expected: readonly number[] | undefined, at: Date) {
    const table = this.mine(this.tables).find((t) => t.id === id);
    if (!table || (expected && !expected.includes(table.latestVersion))) return null;
    table.latestVersion += 1;
    table.modifiedAt = at;
    return table.latestVersion;
  }
  async deleteTable(_m: EntityManager, id: string) {
    const before = this.tables.length;
    this.tables.splice(0, this.tables.length, ...this.tables.filter((t) => t.id !== id));
    this.versionRows.splice(0, this.versionRows.length, ...this.versionRows.filter((v) => v.tableId !== id));
    return before - this.tables.length;
  }
  async insertVersion(_m: EntityManager, version: DecisionTableVersionEntity) {
    this.versionRows.push(structuredClone(version));
  }
  async version(_m: EntityManager, id: string, version: number) {
    return this.mine(this.versionRows).find((v) => v.tableId === id && v.version === version) ?? null;
  }
  async versions(_m: EntityManager, id: string, offset: number, limit: number) {
    return this.mine(this.versionRows)
      .filter((v) => v.tableId === id)
      .sort((a, b) => b.version - a.version)
      .slice(offset, offset + limit);
  }
  async countVersions(_m: EntityManager, id: string) {
    return this.mine(this.versionRows).filter((v) => v.tableId === id).length;
  }
  async audit(_m: EntityManager, record: AuditRecord) {
    this.auditRows.push({ id: String(this.auditRows.length + 1), ...record });
  }
  async auditOf(_m: EntityManager, tableId: string, offset: number, limit: number) {
    return this.mine(this.auditRows)
      .filter((a) => a.tableId === tableId)
      .reverse()
      .slice(offset, offset + limit);
  }
  async auditAll(_m: EntityManager, offset: number, limit: number, tenantId?: string) {
    return this.auditRows
      .filter((a) => !tenantId || a.tenantId === tenantId)
      .reverse()
      .slice(offset, offset + limit);
  }
}

/** A unit of work without a database: runs the work with a dummy manager in the ambient tenant. */
export function inMemoryUnitOfWork(): UnitOfWork {
  return {
    run: <T>(work: (m: EntityManager) => Promise<T>, options: { tenantId?: string } = {}) =>
      options.tenantId
        ? RequestContext.run({ ...RequestContext.current(), tenantId: options.tenantId }, () =>
            work({} as EntityManager),
          )
        : work({} as EntityManager),
  } as UnitOfWork;
}
