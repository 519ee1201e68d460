import { AppError, readPage, RequestContext, UnitOfWork } from '@arbiter/platform';
import { Inject, Injectable, Optional } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { EntityManager } from 'typeorm';
import { CrudRepository, CrudRow } from './crud.repository';
import { CrudErrors } from './crud-errors';
import { CrudWrite, CrudWriteHooks } from './crud-write-hooks';
import { EntityDefinition } from './entity-definition';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Paging of the list endpoint: `pageIndex` (1-based) and `pageSize`, with their default and bound. */
export const CRUD_PAGING = {
  defaultSize: 20,
  maxSize: 200,
  pageParam: 'pageIndex',
  sizeParam: 'pageSize',
} as const;

export interface Page<T> {
  items: T[];
  pageIndex: number;
  pageSize: number;
  totalCount: number;
  totalPages: number;
}

/** What a soft delete answers. */
export interface DeletedEntry {
  entityId: string;
  deleted: true;
  deletionTime: string;
}

/**
 * The use cases behind the generic CRUD endpoints: paging, 404 for a missing (or non-UUID) id, DTO to
 * column values (with the definition's `prepare`, e.g. password hashing), 409 on a unique violation.
 */
@Injectable()
export class CrudService {
  constructor(
    @Inject(UnitOfWork) private readonly uow: UnitOfWork,
    @Inject(CrudRepository) private readonly rows: CrudRepository,
    @Optional() @Inject(CrudWriteHooks) private readonly hooks: CrudWriteHooks | null = null,
  ) {}

  async list(def: EntityDefinition, query: Record<string, unknown>): Promise<Page<CrudRow>> {
    const page = readPage(query, CRUD_PAGING);
    return this.uow.run(async (m) => {
      const count = await this.rows.count(m, def);
      const items = await this.rows.page(m, def, page.pageSize, page.offset);
      return {
        items,
        pageIndex: page.page,
        pageSize: page.pageSize,
        totalCount: count,
        totalPages: Math.ceil(count / page.pageSize),
      };
    });
  }

  private async find(def: EntityDefinition, m: EntityManager, id: string): Promise<CrudRow> {
    const row = UUID.test(id) ? await this.rows.find(m, def, id) : undefined;
    if (!row) throw AppError.notFound(CrudErrors.NotFound, `${def.permissionPrefix} '${id}' not found`);
    return row;
  }

  get(def: EntityDefinition, id: string): Promise<CrudRow> {
    return this.uow.run((m) => this.find(def, m, id));
  }

  /** API fields of the DTO that are writable, as columns, plus what the definition's `prepare` adds. */
  private async columns(
    def: EntityDefinition,
    dto: Record<string, unknown>,
    mode: 'create' | 'update',
    m: EntityManager,
  ) {
    const values: Record<string, unknown> = {};
    for (const [api, column] of Object.entries(def.writable ?? def.fields)) {
      if (dto[api] !== undefined) values[column] = dto[api];
    }
    if (def.prepare) Object.assign(values, await def.prepare(dto, mode, m));
    return values;
  }

  private conflict(def: EntityDefinition, error: unknown): never {
    if (
      (error as { code?: string }).code === '23505' ||
      (error as { driverError?: { code?: string } }).driverError?.code === '23505'
    ) {
      throw AppError.conflict(
        def.conflictCode ?? CrudErrors.Conflict,
        `A ${def.permissionPrefix} entry with these values already exists`,
      );
    }
    throw error;
  }

  /** `before` runs first in the same transaction (e.g. a check that must hold when the row is inserted). */
  async create(
    def: EntityDefinition,
    dto: Record<string, unknown>,
    before?: (m: EntityManager) => Promise<void>,
  ): Promise<CrudRow> {
    try {
      const id = randomUUID();
      const write: CrudWrite = { mode: 'create', id, dto };
      const created = await this.uow.run(async (m) => {
        if (before) await before(m);
        await this.hooks?.before(def, write, m);
        const values = await this.columns(def, dto, 'create', m);
        await this.rows.insert(m, def, { id, tenant_id: RequestContext.tenantId(), ...values });
        await this.hooks?.after(def, write, m);
        const row = await this.find(def, m, id);
        return { entityId: id, ...row };
      });
      await this.hooks?.committed(def, write);
      return created;
    } catch (error) {
      this.conflict(def, error);
    }
  }

  async update(def: EntityDefinition, id: string, dto: Record<string, unknown>): Promise<CrudRow> {
    try {
      const write: CrudWrite = { mode: 'update', id, dto };
      const updated = await this.uow.run(async (m) => {
        await this.find(def, m, id);
        await this.hooks?.before(def, write, m);
        await this.rows.update(m, def, id, await this.columns(def, dto, 'update', m));
        await this.hooks?.after(def, write, m);
        return { entityId: id, ...(await this.find(def, m, id)) };
      });
      await this.hooks?.committed(def, write);
      return updated;
    } catch (error) {
      this.conflict(def, error);
    }
  }

  async remove(def: EntityDefinition, id: string): Promise<DeletedEntry> {
    const write: CrudWrite = { mode: 'delete', id };
    const deleted = await this.uow.run(async (m) => {
      await this.find(def, m, id);
      await this.hooks?.before(def, write, m);
      const deletedAt = await this.rows.softDelete(m, def, id);
      await this.hooks?.after(def, write, m);
      return { entityId: id, deleted: true as const, deletionTime: deletedAt.toISOString() };
    });
    await this.hooks?.committed(def, write);
    return deleted;
  }
}
