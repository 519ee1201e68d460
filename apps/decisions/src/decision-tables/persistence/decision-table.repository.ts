import { parseStoredJsonSliced, stringifyJsonSliced } from '@arbiter/platform';
import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import type { StoredDefinition } from '../application/table-model';
import { DecisionTableAuditEntity, DecisionTableEntity, DecisionTableVersionEntity } from './entities';

export interface AuditRecord {
  tenantId: string;
  tableId: string;
  tableName: string;
  action: 'Create' | 'Update' | 'Delete';
  actor: string;
  version: number | null;
  comment: string | null;
  changesSummary: string;
  timestamp: Date;
}

/**
 * `UPDATE … RETURNING` through `EntityManager.query` answers `[rows, affected]` on the pg driver and
 * the rows alone on PGlite: the rows either way.
 */
interface VersionRow {
  table_id: string;
  version: number;
  tenant_id: string;
  definition: string;
  created_at: Date | string;
  created_by: string;
  comment: string | null;
}

function returnedRows<T>(result: unknown): T[] {
  const rows = result as unknown[];
  return (Array.isArray(rows[0]) ? rows[0] : rows) as T[];
}

/** Storage of tables, versions and audit. Every method runs inside the caller's unit of work. */
export abstract class DecisionTableRepository {
  abstract list(
    m: EntityManager,
    offset: number,
    limit: number,
    tenantId?: string,
  ): Promise<DecisionTableEntity[]>;
  abstract find(m: EntityManager, id: string): Promise<DecisionTableEntity | null>;
  abstract findByName(m: EntityManager, name: string): Promise<DecisionTableEntity | null>;
  abstract insertTable(m: EntityManager, table: DecisionTableEntity): Promise<void>;
  abstract updateTable(m: EntityManager, table: DecisionTableEntity): Promise<void>;
  /**
   * Moves a table's latest version on by one, in one conditional statement, and answers the new number;
   * null when there is no such table or (`expected` given) its latest version is none of `expected`. The
   * row stays locked until the unit of work ends: a concurrent writer waits, then sees the new number
   * (and, if it expected the old one, moves nothing).
   */
  abstract advanceVersion(
    m: EntityManager,
    id: string,
    expected: readonly number[] | undefined,
    modifiedAt: Date,
  ): Promise<number | null>;
  abstract deleteTable(m: EntityManager, id: string): Promise<number>;
  abstract insertVersion(m: EntityManager, version: DecisionTableVersionEntity): Promise<void>;
  abstract version(m: EntityManager, id: string, version: number): Promise<DecisionTableVersionEntity | null>;
  /**
   * A version's definition as the JSON text stored, unparsed (null when there is no such version): what a
   * worker thread parses for itself, so the service's thread never holds a large table's rows.
   */
  async versionText(m: EntityManager, id: string, version: number): Promise<string | null> {
    const stored = await this.version(m, id, version);
    return stored ? JSON.stringify(stored.definition) : null;
  }
  abstract versions(
    m: EntityManager,
    id: string,
    offset: number,
    limit: number,
  ): Promise<DecisionTableVersionEntity[]>;
  abstract countVersions(m: EntityManager, id: string): Promise<number>;
  abstract audit(m: EntityManager, record: AuditRecord): Promise<void>;
  abstract auditOf(
    m: EntityManager,
    tableId: string,
    offset: number,
    limit: number,
  ): Promise<DecisionTableAuditEntity[]>;
  abstract auditAll(
    m: EntityManager,
    offset: number,
    limit: number,
    tenantId?: string,
  ): Promise<DecisionTableAuditEntity[]>;
}

@Injectable()
export class TypeOrmDecisionTableRepository extends DecisionTableRepository {
  list(m: EntityManager, offset: number, limit: number, tenantId?: string) {
    return m.getRepository(DecisionTableEntity).find({
      where: tenantId ? { tenantId } : {},
      order: { name: 'ASC' },
      skip: offset,
      take: limit,
    });
  }
  find(m: EntityManager, id: string) {
    return m.getRepository(DecisionTableEntity).findOne({ where: { id } });
  }
  findByName(m: EntityManager, name: string) {
    return m.getRepository(DecisionTableEntity).findOne({ where: { name } });
  }
  async insertTable(m: EntityManager, table: DecisionTableEntity) {
    await m.getRepository(DecisionTableEntity).insert(table);
  }
  async updateTable(m: EntityManager, table: DecisionTableEntity) {
    const { id, ...rest } = table;
    await m.getRepository(DecisionTableEntity).update({ id }, rest);
  }
  async advanceVersion(
    m: EntityManager,
    id: string,
    expected: readonly number[] | undefined,
    modifiedAt: Date,
  ) {
    const result = await m.query(
      `UPDATE decision_tables SET latest_version = latest_version + 1, modified_at = $2
        WHERE id = $1 ${expected ? 'AND latest_version = ANY($3::int[])' : ''}
        RETURNING latest_version`,
      expected ? [id, modifiedAt, [...expected]] : [id, modifiedAt],
    );
    const [row] = returnedRows<{ latest_version: number }>(result);
    return row ? Number(row.latest_version) : null;
  }
  async deleteTable(m: EntityManager, id: string) {
    return (await m.getRepository(DecisionTableEntity).delete({ id })).affected ?? 0;
  }
  /** The definition is written as JSON text made in slices of the event loop (a 100,000-row table). */
  async insertVersion(m: EntityManager, version: DecisionTableVersionEntity) {
    const definition = await stringifyJsonSliced(version.definition);
    await m.query(
      `INSERT INTO decision_table_versions
         (table_id, version, tenant_id, definition, created_at, created_by, comment)
       VALUES ($1, $2, $3, $4::jsonb, $5, $6, $7)`,
      [
        version.tableId,
        version.version,
        version.tenantId,
        definition,
        version.createdAt,
        version.createdBy,
        version.comment,
      ],
    );
  }
  /** The definition is read as JSON text and parsed in slices of the event loop (a 100,000-row table). */
  async version(m: EntityManager, tableId: string, version: number) {
    const [row] = returnedRows<VersionRow>(
      await m.query(
        `SELECT table_id, version, tenant_id, definition::text AS definition, created_at, created_by, comment
           FROM decision_table_versions WHERE table_id = $1 AND version = $2`,
        [tableId, version],
      ),
    );
    if (!row) return null;
    const entity = new DecisionTableVersionEntity();
    entity.tableId = row.table_id;
    entity.version = Number(row.version);
    entity.tenantId = row.tenant_id;
    entity.definition = (await parseStoredJsonSliced(row.definition)) as StoredDefinition;
    entity.createdAt = new Date(row.created_at);
    entity.createdBy = row.created_by;
    entity.comment = row.comment;
    return entity;
  }
  override async versionText(m: EntityManager, tableId: string, version: number) {
    const [row] = returnedRows<{ definition: string }>(
      await m.query(
        `SELECT definition::text AS definition FROM decision_table_versions WHERE table_id = $1 AND version = $2`,
        [tableId, version],
      ),
    );
    return row ? row.definition : null;
  }
  versions(m: EntityManager, tableId: string, offset: number, limit: number) {
    return m.getRepository(DecisionTableVersionEntity).find({
      where: { tableId },
      order: { version: 'DESC' },
      skip: offset,
      take: limit,
      select: {
        tableId: true,
        version: true,
        createdAt: true,
        createdBy: true,
        comment: true,
        tenantId: true,
      },
    });
  }
  countVersions(m: EntityManager, tableId: string) {
    return m.getRepository(DecisionTableVersionEntity).count({ where: { tableId } });
  }
  async audit(m: EntityManager, record: AuditRecord) {
    await m.getRepository(DecisionTableAuditEntity).insert(record);
  }
  auditOf(m: EntityManager, tableId: string, offset: number, limit: number) {
    return m
      .getRepository(DecisionTableAuditEntity)
      .find({ where: { tableId }, order: { id: 'DESC' }, skip: offset, take: limit });
  }
  auditAll(m: EntityManager, offset: number, limit: number, tenantId?: string) {
    return m.getRepository(DecisionTableAuditEntity).find({
      where: tenantId ? { tenantId } : {},
      order: { id: 'DESC' },
      skip: offset,
      take: limit,
    });
  }
}
