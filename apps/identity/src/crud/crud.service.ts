import { AppError, assertIdentifier, readPage, RequestContext, UnitOfWork } from '@arbiter/platform';
import { Inject, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { EntityManager } from 'typeorm';
import { EntityDefinition } from './entity-definition';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface Page<T> {
  items: T[];
  pageIndex: number;
  pageSize: number;
  totalCount: number;
  totalPages: number;
}

function columnName(column: string): string {
  return assertIdentifier(column, 'column name');
}

/** Generic tenant-scoped, soft-deleting repository behind the CRUD endpoints. */
@Injectable()
export class CrudService {
  constructor(@Inject(UnitOfWork) private readonly uow: UnitOfWork) {}

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

  private table(def: EntityDefinition): string {
    return assertIdentifier(def.table, 'table name');
  }

  async list(def: EntityDefinition, query: Record<string, unknown>): Promise<Page<Record<string, unknown>>> {
    const page = readPage(query, {
      defaultSize: 20,
      maxSize: 200,
      pageParam: 'pageIndex',
      sizeParam: 'pageSize',
    });
    return this.uow.run(async (m) => {
      const [{ count }] = await m.query(
        `SELECT count(*)::int AS count FROM ${this.table(def)} WHERE NOT is_deleted`,
      );
      const items = await m.query(
        `SELECT ${this.selectList(def)} FROM ${this.table(def)} WHERE NOT is_deleted
          ORDER BY creation_time, id LIMIT $1 OFFSET $2`,
        [page.pageSize, page.offset],
      );
      return {
        items,
        pageIndex: page.page,
        pageSize: page.pageSize,
        totalCount: count,
        totalPages: Math.ceil(count / page.pageSize),
      };
    });
  }

  private async find(def: EntityDefinition, m: EntityManager, id: string): Promise<Record<string, unknown>> {
    if (!UUID.test(id)) throw AppError.notFound('NOT_FOUND', `${def.permissionPrefix} '${id}' not found`);
    const rows = await m.query(
      `SELECT ${this.selectList(def)} FROM ${this.table(def)} WHERE id = $1 AND NOT is_deleted`,
      [id],
    );
    if (!rows[0]) throw AppError.notFound('NOT_FOUND', `${def.permissionPrefix} '${id}' not found`);
    return rows[0];
  }

  get(def: EntityDefinition, id: string): Promise<Record<string, unknown>> {
    return this.uow.run((m) => this.find(def, m, id));
  }

  private async columns(
    def: EntityDefinition,
    dto: Record<string, unknown>,
    mode: 'create' | 'update',
    m: EntityManager,
  ) {
    const values: Record<string, unknown> = {};
    for (const [api, column] of Object.entries(def.writable ?? def.fields)) {
      if (dto[api] !== undefined) values[columnName(column)] = dto[api];
    }
    if (def.prepare) {
      for (const [column, value] of Object.entries(await def.prepare(dto, mode, m)))
        values[columnName(column)] = value;
    }
    return values;
  }

  private conflict(def: EntityDefinition, error: unknown): never {
    if (
      (error as { code?: string }).code === '23505' ||
      (error as { driverError?: { code?: string } }).driverError?.code === '23505'
    ) {
      throw AppError.conflict(
        def.conflictCode ?? 'CONFLICT',
        `A ${def.permissionPrefix} entry with these values already exists`,
      );
    }
    throw error;
  }

  async create(def: EntityDefinition, dto: Record<string, unknown>): Promise<Record<string, unknown>> {
    try {
      return await this.uow.run(async (m) => {
        const values = await this.columns(def, dto, 'create', m);
        const id = randomUUID();
        const all: Record<string, unknown> = { id, tenant_id: RequestContext.tenantId(), ...values };
        const names = Object.keys(all);
        await m.query(
          `INSERT INTO ${this.table(def)} (${names.join(', ')}) VALUES (${names.map((_, i) => `$${i + 1}`).join(', ')})`,
          Object.values(all),
        );
        const row = await this.find(def, m, id);
        return { entityId: id, ...row };
      });
    } catch (error) {
      this.conflict(def, error);
    }
  }

  async update(
    def: EntityDefinition,
    id: string,
    dto: Record<string, unknown>,
  ): Promise<Record<string, unknown>> {
    try {
      return await this.uow.run(async (m) => {
        await this.find(def, m, id);
        const values = await this.columns(def, dto, 'update', m);
        const names = Object.keys(values);
        await m.query(
          `UPDATE ${this.table(def)} SET ${[...names.map((n, i) => `${n} = $${i + 2}`), 'last_modification_time = now()'].join(', ')}
            WHERE id = $1 AND NOT is_deleted`,
          [id, ...Object.values(values)],
        );
        return { entityId: id, ...(await this.find(def, m, id)) };
      });
    } catch (error) {
      this.conflict(def, error);
    }
  }

  async remove(
    def: EntityDefinition,
    id: string,
  ): Promise<{ entityId: string; deleted: true; deletionTime: string }> {
    return this.uow.run(async (m) => {
      await this.find(def, m, id);
      const rows = await m.query(
        `UPDATE ${this.table(def)} SET is_deleted = true, deletion_time = now() WHERE id = $1 RETURNING deletion_time`,
        [id],
      );
      // TypeORM's pg driver answers UPDATE … RETURNING with [rows, affected].
      const row = Array.isArray(rows[0]) ? rows[0][0] : rows[0];
      return { entityId: id, deleted: true, deletionTime: new Date(row.deletion_time).toISOString() };
    });
  }
}
