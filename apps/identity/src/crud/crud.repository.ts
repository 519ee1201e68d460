import { assertIdentifier } from '@arbiter/platform';
import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { EntityDefinition } from './entity-definition';

/** A row as the API returns it: API field names (the definition's `fields`, `id` and the two times). */
export type CrudRow = Record<string, unknown>;

/**
 * The SQL of the generic CRUD endpoints over any table an `EntityDefinition` describes: tenant-scoped by
 * row-level security, soft-deleting. Table and column names come from definitions and are still checked
 * as identifiers before they reach a statement. Every method runs in the caller's unit of work.
 */
@Injectable()
export class CrudRepository {
  private table(def: EntityDefinition): string {
    return assertIdentifier(def.table, 'table name');
  }

  private selectList(def: EntityDefinition): string {
    const fields = {
      id: 'id',
      ...def.fields,
      creationTime: 'creation_time',
      lastModificationTime: 'last_modification_time',
    };
    return Object.entries(fields)
      .map(([api, column]) => `${columnName(column)} AS "${api.replace(/"/g, '')}"`)
      .join(', ');
  }

  async count(m: EntityManager, def: EntityDefinition): Promise<number> {
    const [{ count }] = await m.query(
      `SELECT count(*)::int AS count FROM ${this.table(def)} WHERE NOT is_deleted`,
    );
    return count;
  }

  /** A page of undeleted rows, oldest first. */
  page(m: EntityManager, def: EntityDefinition, limit: number, offset: number): Promise<CrudRow[]> {
    return m.query(
      `SELECT ${this.selectList(def)} FROM ${this.table(def)} WHERE NOT is_deleted
        ORDER BY creation_time, id LIMIT $1 OFFSET $2`,
      [limit, offset],
    );
  }

  async find(m: EntityManager, def: EntityDefinition, id: string): Promise<CrudRow | undefined> {
    const rows = await m.query(
      `SELECT ${this.selectList(def)} FROM ${this.table(def)} WHERE id = $1 AND NOT is_deleted`,
      [id],
    );
    return rows[0];
  }

  /** Inserts a row of column values (the `id` and `tenant_id` columns included). */
  async insert(m: EntityManager, def: EntityDefinition, columns: Record<string, unknown>): Promise<void> {
    const names = Object.keys(columns).map(columnName);
    await m.query(
      `INSERT INTO ${this.table(def)} (${names.join(', ')}) VALUES (${names.map((_, i) => `$${i + 1}`).join(', ')})`,
      Object.values(columns),
    );
  }

  /** Sets the given columns of an undeleted row and its modification time. */
  async update(
    m: EntityManager,
    def: EntityDefinition,
    id: string,
    columns: Record<string, unknown>,
  ): Promise<void> {
    const names = Object.keys(columns).map(columnName);
    await m.query(
      `UPDATE ${this.table(def)} SET ${[...names.map((n, i) => `${n} = $${i + 2}`), 'last_modification_time = now()'].join(', ')}
        WHERE id = $1 AND NOT is_deleted`,
      [id, ...Object.values(columns)],
    );
  }

  /** Marks a row deleted; returns when. */
  async softDelete(m: EntityManager, def: EntityDefinition, id: string): Promise<Date> {
    const rows = await m.query(
      `UPDATE ${this.table(def)} SET is_deleted = true, deletion_time = now() WHERE id = $1 RETURNING deletion_time`,
      [id],
    );
    // TypeORM's pg driver answers UPDATE … RETURNING with [rows, affected].
    const row = Array.isArray(rows[0]) ? rows[0][0] : rows[0];
    return new Date(row.deletion_time);
  }
}

function columnName(column: string): string {
  return assertIdentifier(column, 'column name');
}
