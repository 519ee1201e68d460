import { DecisionTableChangedEvent, Subjects } from '@arbiter/contracts';
import { AppError, EventBus, RequestContext, UnitOfWork } from '@arbiter/platform';
import {
  AnalysisResult,
  CompiledDecisionTable,
  EvaluationError,
  TableCompileError,
  TableProblem,
  ValidationResult,
  analyzeTable,
  compileDecisionTable,
  validateDecisionTable,
} from '@arbiter/rule-engine';
import { Inject, Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { EntityManager } from 'typeorm';
import { DecisionTablesSettings } from '../../settings/decision-tables.settings';
import { DecisionTableRepository } from '../persistence/decision-table.repository';
import {
  DecisionTableAuditEntity,
  DecisionTableEntity,
  DecisionTableVersionEntity,
} from '../persistence/entities';
import { CompiledTableCache } from './compiled-table-cache';
import { DecisionTableErrors as E } from './errors';
import { diffVersions, summarizeChange, VersionDiff } from './table-diff';
import { DecisionTableView, StoredDefinition, TableSummary, toStoredDefinition } from './table-model';

export type EvaluationView = ReturnType<CompiledDecisionTable['evaluate']> & { evaluationTimeMs: number };

export interface Page {
  offset: number;
  pageSize: number;
}

/** Parses a version path/query value: a positive integer, else 400 INVALID_VERSION. */
export function parseVersion(raw: unknown, name = 'version'): number {
  const text = String(raw ?? '').trim();
  if (!/^\d{1,9}$/.test(text) || Number(text) < 1)
    throw AppError.badRequest(E.InvalidVersion, `${name} must be a positive integer`);
  return Number(text);
}

/**
 * Decision tables per spec 2: CRUD with versions, evaluation through the compiled-table cache,
 * diff, validation and analysis, audit, change events after commit.
 */
@Injectable()
export class DecisionTablesService implements OnModuleInit {
  private readonly logger = new Logger('DecisionTables');
  readonly cache: CompiledTableCache;
  private evaluations = 0;

  constructor(
    @Inject(UnitOfWork) private readonly uow: UnitOfWork,
    @Inject(DecisionTableRepository) private readonly repo: DecisionTableRepository,
    @Inject(EventBus) private readonly bus: EventBus,
    @Inject(DecisionTablesSettings) private readonly settings: DecisionTablesSettings,
  ) {
    this.cache = new CompiledTableCache(settings.compiledCacheSize);
  }

  async onModuleInit(): Promise<void> {
    // other replicas' changes (NATS) and our own (in process) drop stale compiled tables
    await this.bus.subscribe(Subjects.DecisionTableChanged, (event) => {
      const data = event.data as DecisionTableChangedEvent;
      this.cache.invalidate(data.tenantId, data.tableId);
    });
  }

  private get limits() {
    return { maxRows: this.settings.maxRows, maxColumns: this.settings.maxColumns, maxCellLength: 10_000 };
  }

  // ------------------------------------------------------------------ reads

  async list(page: Page, tenantFilter?: string): Promise<TableSummary[]> {
    return this.uow.run(async (m) => {
      const tables = await this.repo.list(m, page.offset, page.pageSize, tenantFilter);
      return Promise.all(
        tables.map(async (t) => {
          const v = (await this.repo.version(m, t.id, t.latestVersion))!;
          return {
            id: t.id,
            name: t.name,
            description: t.description,
            inputColumnCount: v.definition.inputColumns.length,
            outputColumnCount: v.definition.outputColumns.length,
            rowCount: v.definition.rows.length,
            version: t.latestVersion,
            updatedAt: t.modifiedAt.toISOString(),
            tenantId: t.tenantId,
          };
        }),
      );
    });
  }

  async get(id: string, version?: number): Promise<DecisionTableView> {
    return this.uow.run(async (m) => {
      const { table, stored } = await this.load(m, id, version);
      return view(table, stored);
    });
  }

  /** A table by its (tenant-unique) name: how flow nodes of the control plane reference stored tables. */
  async getByName(name: string, version?: number): Promise<DecisionTableView> {
    return this.uow.run(async (m) => {
      const found = await this.repo.findByName(m, name);
      if (!found) throw AppError.notFound(E.TableNotFound, `Decision table named '${name}' does not exist`);
      const { table, stored } = await this.load(m, found.id, version);
      return view(table, stored);
    });
  }

  async versions(id: string, page: Page) {
    return this.uow.run(async (m) => {
      await this.requireTable(m, id);
      const rows = await this.repo.versions(m, id, page.offset, page.pageSize);
      return rows.map((v) => ({
        version: v.version,
        createdAt: v.createdAt.toISOString(),
        createdBy: v.createdBy,
        comment: v.comment ?? '',
      }));
    });
  }

  async diff(id: string, from: number, to: number): Promise<VersionDiff> {
    return this.uow.run(async (m) => {
      await this.requireTable(m, id);
      const [a, b] = await Promise.all([this.repo.version(m, id, from), this.repo.version(m, id, to)]);
      if (!a || !b)
        throw AppError.notFound(
          E.VersionNotFound,
          `Version ${!a ? from : to} of table '${id}' does not exist`,
        );
      return diffVersions(from, a.definition, to, b.definition);
    });
  }

  async audit(id: string, page: Page) {
    return this.uow.run(async (m) => {
      await this.requireTable(m, id);
      return (await this.repo.auditOf(m, id, page.offset, page.pageSize)).map(auditView);
    });
  }

  /** Administrators only (role `Admin`, or permission `decision-tables.audit.global` / `*`). */
  async globalAudit(page: Page, tenantId?: string) {
    const user = RequestContext.current()?.user;
    const admin =
      !!user &&
      (user.roles.includes('Admin') ||
        user.permissions.includes('decision-tables.audit.global') ||
        user.permissions.includes('*'));
    if (!admin) throw AppError.forbidden('The global audit is for administrators');
    return this.uow.run(
      async (m) =>
        (await this.repo.auditAll(m, page.offset, page.pageSize, tenantId)).map((a) => ({
          ...auditView(a),
          tableId: a.tableId,
          tableName: a.tableName,
          tenantId: a.tenantId,
        })),
      { acrossTenants: true },
    );
  }

  // ------------------------------------------------------------------ writes

  /** Checks a definition; 400 INVALID_TABLE with one detail per bad row/column. */
  private checked(body: Record<string, unknown>): StoredDefinition {
    const result = validateDecisionTable(body, this.limits);
    if (!result.valid) throw invalidTable(result.errors);
    return toStoredDefinition(body);
  }

  async create(body: Record<string, unknown>) {
    const definition = this.checked(body);
    const now = new Date();
    const id = randomUUID();
    const tenantId = RequestContext.tenantId();
    const actor = RequestContext.actor();
    await this.uow.run(async (m) => {
      if (await this.repo.findByName(m, definition.name))
        throw AppError.conflict(E.DuplicateName, `A table named '${definition.name}' already exists`);
      await this.repo
        .insertTable(m, {
          id,
          tenantId,
          name: definition.name,
          description: definition.description ?? null,
          latestVersion: 1,
          createdAt: now,
          modifiedAt: now,
        })
        .catch(uniqueViolation(E.DuplicateName, `A table named '${definition.name}' already exists`));
      await this.repo.insertVersion(m, {
        tableId: id,
        version: 1,
        tenantId,
        definition,
        createdAt: now,
        createdBy: actor,
        comment: stringOrNull(body.comment),
      });
      await this.repo.audit(m, {
        tenantId,
        tableId: id,
        tableName: definition.name,
        action: 'Create',
        actor,
        version: 1,
        comment: stringOrNull(body.comment),
        changesSummary: `Created with ${definition.rows.length} row(s), ${definition.inputColumns.length} input and ${definition.outputColumns.length} output column(s)`,
        timestamp: now,
      });
    });
    await this.publish(id, tenantId, 1, 'created');
    return { id, name: definition.name, version: 1, createdAt: now.toISOString() };
  }

  async update(id: string, body: Record<string, unknown>) {
    const definition = this.checked(body);
    const now = new Date();
    const tenantId = RequestContext.tenantId();
    const actor = RequestContext.actor();
    const version = await this.uow.run(async (m) => {
      const table = await this.requireTable(m, id);
      const previous = (await this.repo.version(m, id, table.latestVersion))!;
      if (definition.name !== table.name && (await this.repo.findByName(m, definition.name)))
        throw AppError.conflict(E.DuplicateName, `A table named '${definition.name}' already exists`);
      const next = table.latestVersion + 1;
      await this.repo
        .insertVersion(m, {
          tableId: id,
          version: next,
          tenantId,
          definition,
          createdAt: now,
          createdBy: actor,
          comment: stringOrNull(body.comment),
        })
        .catch(uniqueViolation(E.ConcurrentModification, 'The table was modified concurrently; retry'));
      await this.repo
        .updateTable(m, {
          ...table,
          name: definition.name,
          description: definition.description ?? null,
          latestVersion: next,
          modifiedAt: now,
        })
        .catch(uniqueViolation(E.DuplicateName, `A table named '${definition.name}' already exists`));
      await this.repo.audit(m, {
        tenantId,
        tableId: id,
        tableName: definition.name,
        action: 'Update',
        actor,
        version: next,
        comment: stringOrNull(body.comment),
        changesSummary: summarizeChange(
          diffVersions(table.latestVersion, previous.definition, next, definition),
        ),
        timestamp: now,
      });
      return next;
    });
    this.cache.invalidate(tenantId, id);
    await this.publish(id, tenantId, version, 'updated');
    return { id, version, modifiedAt: now.toISOString() };
  }

  async remove(id: string): Promise<void> {
    const tenantId = RequestContext.tenantId();
    await this.uow.run(async (m) => {
      const table = await this.requireTable(m, id);
      const versions = await this.repo.countVersions(m, id);
      await this.repo.deleteTable(m, id);
      await this.repo.audit(m, {
        tenantId,
        tableId: id,
        tableName: table.name,
        action: 'Delete',
        actor: RequestContext.actor(),
        version: table.latestVersion,
        comment: null,
        changesSummary: `Deleted with ${versions} version(s)`,
        timestamp: new Date(),
      });
    });
    this.cache.invalidate(tenantId, id);
    await this.publish(id, tenantId, null, 'deleted');
  }

  /** Creates each table; a duplicate name is `skipped`, an invalid one `failed` with its error. */
  async importMany(definitions: unknown[]) {
    const results: {
      name: string;
      id: string | null;
      status: 'success' | 'skipped' | 'failed';
      error?: string;
    }[] = [];
    for (const def of definitions) {
      const name =
        typeof (def as { name?: unknown })?.name === 'string' ? (def as { name: string }).name : '';
      try {
        if (typeof def !== 'object' || def === null || Array.isArray(def))
          throw invalidTable([
            { rowId: null, column: null, message: 'A table definition must be an object' },
          ]);
        const created = await this.create(def as Record<string, unknown>);
        results.push({ name, id: created.id, status: 'success' });
      } catch (error) {
        if (!(error instanceof AppError)) throw error;
        results.push({
          name,
          id: null,
          status: error.status === 409 ? 'skipped' : 'failed',
          error: error.message,
        });
      }
    }
    return {
      imported: results.filter((r) => r.status === 'success').length,
      skipped: results.filter((r) => r.status !== 'success').length,
      results,
    };
  }

  // ------------------------------------------------------------------ evaluation

  /** The compiled table if cached (no I/O): the latest version is found through the cache's pointer. */
  private cached(id: string, version?: number): CompiledDecisionTable | undefined {
    const tenantId = RequestContext.tenantId();
    const wanted = version ?? this.cache.latestVersion(tenantId, id);
    return wanted === undefined ? undefined : this.cache.get(tenantId, id, wanted);
  }

  /** The compiled table (cache first; the latest version needs no database read once cached). */
  async compiled(id: string, version?: number): Promise<CompiledDecisionTable> {
    const hit = this.cached(id, version);
    if (hit) return hit;
    const tenantId = RequestContext.tenantId();
    const { table, stored, number } = await this.uow.run((m) => this.load(m, id, version));
    const compiled = compileDecisionTable(stored.definition, {
      limits: { ...this.limits, maxRows: Number.MAX_SAFE_INTEGER },
    });
    this.cache.put(tenantId, id, number, compiled, number === table.latestVersion);
    return compiled;
  }

  /**
   * Evaluates a table. Synchronous when the compiled table is cached (the hot path: no promise, no
   * database); a promise when it has to be loaded and compiled first.
   */
  evaluate(id: string, input: unknown, version?: number): EvaluationView | Promise<EvaluationView> {
    if (input !== undefined && (typeof input !== 'object' || input === null || Array.isArray(input)))
      throw AppError.badRequest(E.InvalidInput, 'input must be an object of column name to value');
    const hit = this.cached(id, version);
    if (hit) return this.timed(hit, input as Record<string, unknown>);
    return this.compiled(id, version).then((c) => this.timed(c, input as Record<string, unknown>));
  }

  private timed(compiled: CompiledDecisionTable, input: Record<string, unknown>): EvaluationView {
    const start = performance.now();
    const result = this.run(compiled, input);
    return { ...result, evaluationTimeMs: performance.now() - start };
  }

  async execute(id: string, facts: unknown) {
    if (typeof facts !== 'object' || facts === null || Array.isArray(facts))
      throw AppError.badRequest(E.InvalidInput, 'The body must be an object of input facts');
    const compiled = await this.compiled(id);
    const r = this.run(compiled, facts as Record<string, unknown>);
    return { matchedRows: r.matchedRows, outputs: r.outputValues };
  }

  private run(compiled: CompiledDecisionTable, input: Record<string, unknown>) {
    this.evaluations++;
    try {
      return compiled.evaluate(input);
    } catch (e) {
      if (e instanceof EvaluationError) {
        if (e.code === 'HIT_POLICY_VIOLATION') throw AppError.unprocessable(E.HitPolicyViolation, e.message);
        throw AppError.badRequest(
          e.code,
          e.message,
          e.column ? [{ field: `input.${e.column}`, message: e.message }] : undefined,
        );
      }
      throw e;
    }
  }

  // ------------------------------------------------------------------ validation and analysis

  validate(body: unknown): ValidationResult {
    return validateDecisionTable(body, this.limits);
  }

  async analyze(id: string, version?: number): Promise<AnalysisResult & { id: string; version: number }> {
    const compiled = await this.compiled(id, version);
    const v = version ?? this.cache.latestVersion(RequestContext.tenantId(), id) ?? 0;
    return { id, version: v, ...analyzeTable(compiled) };
  }

  analyzeDefinition(body: unknown): AnalysisResult {
    const result = validateDecisionTable(body, this.limits);
    if (!result.valid) throw invalidTable(result.errors);
    return result.analysis!;
  }

  metrics() {
    return { compiledCache: this.cache.metrics(), evaluations: this.evaluations };
  }

  // ------------------------------------------------------------------ helpers

  private async requireTable(m: EntityManager, id: string): Promise<DecisionTableEntity> {
    const table = isUuid(id) ? await this.repo.find(m, id) : null;
    if (!table) throw AppError.notFound(E.TableNotFound, `Decision table '${id}' does not exist`);
    return table;
  }

  private async load(m: EntityManager, id: string, version?: number) {
    const table = await this.requireTable(m, id);
    const number = version ?? table.latestVersion;
    const stored: DecisionTableVersionEntity | null = await this.repo.version(m, id, number);
    if (!stored)
      throw AppError.notFound(E.VersionNotFound, `Version ${number} of table '${id}' does not exist`);
    return { table, stored, number };
  }

  private async publish(
    tableId: string,
    tenantId: string,
    version: number | null,
    change: DecisionTableChangedEvent['change'],
  ) {
    try {
      await this.bus.publish(Subjects.DecisionTableChanged, {
        tableId,
        tenantId,
        version,
        change,
        occurredAt: new Date().toISOString(),
      });
    } catch (error) {
      this.logger.warn({ msg: 'decision-table change event not published', tableId, error: String(error) });
    }
  }
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const isUuid = (id: string) => UUID.test(id);

function view(table: DecisionTableEntity, stored: DecisionTableVersionEntity): DecisionTableView {
  return {
    id: table.id,
    ...stored.definition,
    version: stored.version,
    createdAt: table.createdAt.toISOString(),
    modifiedAt: stored.createdAt.toISOString(),
    tenantId: table.tenantId,
  };
}

function auditView(a: DecisionTableAuditEntity) {
  return {
    timestamp: a.timestamp.toISOString(),
    action: a.action,
    actor: a.actor,
    version: a.version,
    comment: a.comment,
    changesSummary: a.changesSummary,
  };
}

function stringOrNull(v: unknown): string | null {
  return typeof v === 'string' && v.trim() ? v : null;
}

export function invalidTable(problems: TableProblem[]): AppError {
  return AppError.badRequest(
    E.InvalidTable,
    `The table definition is invalid: ${problems[0]?.message ?? 'unknown problem'}`,
    problems.map((p) => ({
      field: [p.rowId ? `rows.${p.rowId}` : null, p.column].filter(Boolean).join('.') || 'table',
      message: p.message,
    })),
  );
}

function uniqueViolation(code: string, message: string) {
  return (error: unknown): never => {
    const driver = (error as { driverError?: { code?: string }; code?: string })?.driverError ?? error;
    if ((driver as { code?: string })?.code === '23505') throw AppError.conflict(code, message);
    throw error;
  };
}

export { TableCompileError };
