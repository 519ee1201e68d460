import { parseStoredJsonBytesSliced, stringifyJsonBytesSliced } from '@arbiter/platform';
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
  created_at: Date | string;
  created_by: string;
  comment: string | null;
}

/** The first byte of a jsonb value in PostgreSQL's binary format (a Buffer parameter is sent in it). */
const JSONB_BINARY_VERSION = 1;

/** Bytes of one part of a stored definition read by `versionBytes`. */
export const VERSION_PART_BYTES = 512 * 1024;

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
   * A version's definition as its stored JSON, unparsed: UTF-8 bytes in parts of at most
   * VERSION_PART_BYTES (a multi-byte character may straddle two), null when there is no such version.
   * What a worker thread decodes and parses for itself: no step of the read decodes the whole text on the
   * service's thread, which never holds a large table's rows.
   */
  async versionBytes(m: EntityManager, id: string, version: number): Promise<Uint8Array[] | null> {
    const stored = await this.version(m, id, version);
    return stored ? [Buffer.from(JSON.stringify(stored.definition))] : null;
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
  /**
   * The definition is sent as jsonb in its binary form (a version byte, 1, then the JSON text as UTF-8),
   * written in slices of the event loop (`stringifyJsonBytesSliced`): a 100,000-row table's 15 MB is never
   * joined into one string nor encoded in one go.
   */
  async insertVersion(m: EntityManager, version: DecisionTableVersionEntity) {
    const definition = await stringifyJsonBytesSliced(version.definition, [JSONB_BINARY_VERSION]);
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
  /**
   * The definition is read as UTF-8 bytes in parts (`versionBytes`' query, the other columns beside each
   * part) and parsed from them in slices of the event loop: a 100,000-row table's 15 MB of JSON is never
   * one message, one string or one parse.
   */
  async version(m: EntityManager, tableId: string, version: number) {
    const rows = returnedRows<VersionRow & { part: Buffer }>(
      await m.query(
        `WITH stored AS MATERIALIZED (
           SELECT table_id, version, tenant_id, created_at, created_by, comment,
                  convert_to(definition::text, 'UTF8') AS bytes
             FROM decision_table_versions WHERE table_id = $1 AND version = $2)
         SELECT table_id, version, tenant_id, created_at, created_by, comment,
                substring(bytes FROM n * $3 + 1 FOR $3) AS part
           FROM stored, generate_series(0, (length(bytes) - 1) / $3) AS n
          ORDER BY n`,
        [tableId, version, VERSION_PART_BYTES],
      ),
    );
    const [row] = rows;
    if (!row) return null;
    const entity = new DecisionTableVersionEntity();
    entity.tableId = row.table_id;
    entity.version = Number(row.version);
    entity.tenantId = row.tenant_id;
    entity.definition = (await parseStoredJsonBytesSliced(rows.map((r) => r.part))) as StoredDefinition;
    entity.createdAt = new Date(row.created_at);
    entity.createdBy = row.created_by;
    entity.comment = row.comment;
    return entity;
  }
  /**
   * One row per part: the text is made once (a materialised CTE) and cut by bytes, so a 15 MB definition
   * comes as 30 messages of 512 KiB (each decoded on its own), never one 15 MB string.
   */
  override async versionBytes(m: EntityManager, tableId: string, version: number) {
    const rows = returnedRows<{ part: Buffer }>(
      await m.query(
        `WITH stored AS MATERIALIZED (
           SELECT convert_to(definition::text, 'UTF8') AS bytes
             FROM decision_table_versions WHERE table_id = $1 AND version = $2)
         SELECT substring(bytes FROM n * $3 + 1 FOR $3) AS part
           FROM stored, generate_series(0, (length(bytes) - 1) / $3) AS n
          ORDER BY n`,
        [tableId, version, VERSION_PART_BYTES],
      ),
    );
    return rows.length ? rows.map((r) => r.part) : null;
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
