import { DecisionTableChangedEvent, Subjects } from '@arbiter/contracts';
import {
  AppError,
  EventBus,
  findUnstorableText,
  RequestContext,
  UnitOfWork,
  unstorableTextError,
} from '@arbiter/platform';
import { AnalysisResult, ValidationResult } from '@arbiter/rule-engine';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { DecisionTablesSettings } from '../../settings';
import { conflictOnUniqueViolation, DecisionTableErrors as E, invalidTable } from '../errors';
import { DecisionTableRepository } from '../persistence/decision-table.repository';
import { commentOrNull } from '../request-values';
import { requireAdministrator } from './administrators';
import { CompiledTableCache } from './compiled-table-cache';
import { loadVersion, loadVersionBytes, requireTable } from './stored-tables';
import { diffVersions, diffVersionsSliced, summarizeChange, VersionDiff } from './table-diff';
import { DecisionTableView, StoredDefinition, TableSummary, toStoredDefinitionSliced } from './table-model';
import { AnalysisWorkers } from './analysis-workers';
import { DecisionTableEvaluationService } from './decision-table-evaluation.service';
import { checkedDefinition, refuseProblems, TableLimits, tableLimits } from './table-validation';
import { auditEntryView, tableSummary, tableView, versionView } from './table-views';

export interface Page {
  offset: number;
  pageSize: number;
}

export interface ImportResult {
  name: string;
  id: string | null;
  /** `ignored`: a part of the file that is no table (a DMN literal-expression decision), not imported */
  status: 'success' | 'skipped' | 'failed' | 'ignored';
  error?: string;
}

/**
 * Authoring of decision tables per spec 2: reads, create/update (a new version each)/delete, versions,
 * diff, import, validation and analysis of a definition, the audit trail; change events after commit.
 * Evaluation is `DecisionTableEvaluationService`'s; a write drops this replica's compiled copies at once.
 */
@Injectable()
export class DecisionTableAuthoringService {
  private readonly logger = new Logger('DecisionTables');
  private readonly limits: TableLimits;
  private readonly maxImportTables: number;

  constructor(
    @Inject(UnitOfWork) private readonly uow: UnitOfWork,
    @Inject(DecisionTableRepository) private readonly repo: DecisionTableRepository,
    @Inject(EventBus) private readonly bus: EventBus,
    @Inject(CompiledTableCache) private readonly cache: CompiledTableCache,
    @Inject(DecisionTablesSettings) settings: DecisionTablesSettings,
    @Inject(AnalysisWorkers) private readonly workers: AnalysisWorkers,
    @Inject(DecisionTableEvaluationService) private readonly evaluation: DecisionTableEvaluationService,
  ) {
    this.limits = tableLimits(settings);
    this.maxImportTables = settings.maxImportTables;
  }

  // ------------------------------------------------------------------ reads

  async list(page: Page, tenantFilter?: string): Promise<TableSummary[]> {
    return this.uow.run(async (m) => {
      const tables = await this.repo.list(m, page.offset, page.pageSize, tenantFilter);
      return Promise.all(
        tables.map(async (t) => tableSummary(t, (await this.repo.version(m, t.id, t.latestVersion))!)),
      );
    });
  }

  async get(id: string, version?: number): Promise<DecisionTableView> {
    return this.uow.run(async (m) => {
      const { table, stored } = await loadVersion(this.repo, m, id, version);
      return tableView(table, stored);
    });
  }

  /** The definition of a stored version as the export formats write it (`description` only when set). */
  async exportDefinition(
    id: string,
    version?: number,
  ): Promise<{ id: string; definition: StoredDefinition }> {
    const table = await this.get(id, version);
    const { name, description, hitPolicy, inputColumns, outputColumns, rows } = table;
    return {
      id: table.id,
      definition: {
        name,
        ...(description ? { description } : {}),
        hitPolicy,
        inputColumns,
        outputColumns,
        rows,
      },
    };
  }

  /** A table by its (tenant-unique) name: how flow nodes of the control plane reference stored tables. */
  async getByName(name: string, version?: number): Promise<DecisionTableView> {
    return this.uow.run(async (m) => {
      const found = await this.repo.findByName(m, name);
      if (!found) throw AppError.notFound(E.TableNotFound, `Decision table named '${name}' does not exist`);
      const { table, stored } = await loadVersion(this.repo, m, found.id, version);
      return tableView(table, stored);
    });
  }

  async versions(id: string, page: Page) {
    return this.uow.run(async (m) => {
      await requireTable(this.repo, m, id);
      return (await this.repo.versions(m, id, page.offset, page.pageSize)).map(versionView);
    });
  }

  async diff(id: string, from: number, to: number): Promise<VersionDiff> {
    return this.uow.run(async (m) => {
      await requireTable(this.repo, m, id);
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
      await requireTable(this.repo, m, id);
      return (await this.repo.auditOf(m, id, page.offset, page.pageSize)).map(auditEntryView);
    });
  }

  /** Administrators of every tenant only: permission `decision-tables.audit.global` (or `*`), never a role name. */
  async globalAudit(page: Page, tenantId?: string) {
    requireAdministrator('decision-tables.audit.global', 'The global audit');
    return this.uow.run(
      async (m) =>
        (await this.repo.auditAll(m, page.offset, page.pageSize, tenantId)).map((a) => ({
          ...auditEntryView(a),
          tableId: a.tableId,
          tableName: a.tableName,
          tenantId: a.tenantId,
        })),
      { acrossTenants: true },
    );
  }

  // ------------------------------------------------------------------ writes

  async create(body: Record<string, unknown>) {
    const definition = await checkedDefinition(body, await this.workers.check(body, this.limits));
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
        .catch(
          conflictOnUniqueViolation(E.DuplicateName, `A table named '${definition.name}' already exists`),
        );
      await this.repo.insertVersion(m, {
        tableId: id,
        version: 1,
        tenantId,
        definition,
        createdAt: now,
        createdBy: actor,
        comment: commentOrNull(body.comment),
      });
      await this.repo.audit(m, {
        tenantId,
        tableId: id,
        tableName: definition.name,
        action: 'Create',
        actor,
        version: 1,
        comment: commentOrNull(body.comment),
        changesSummary: `Created with ${definition.rows.length} row(s), ${definition.inputColumns.length} input and ${definition.outputColumns.length} output column(s)`,
        timestamp: now,
      });
    });
    await this.publish(id, tenantId, 1, 'created');
    this.evaluation.precompile(tenantId, id, 1, definition);
    return { id, name: definition.name, version: 1, createdAt: now.toISOString() };
  }

  /**
   * Writes the next version. `expected` (from the body's `version` and `If-Match`): the versions the
   * caller's edit may be based on; when the latest is none of them, 409 CONCURRENT_MODIFICATION and
   * nothing is written. The version counter moves first, in one conditional statement that locks the
   * table's row: of two concurrent updates based on the same version, exactly one is written.
   */
  async update(id: string, body: Record<string, unknown>, expected?: readonly number[]) {
    // a bad definition is refused before any read (a large one checked on an analysis worker thread)
    refuseProblems(await this.workers.check(body, this.limits));
    const now = new Date();
    const tenantId = RequestContext.tenantId();
    const actor = RequestContext.actor();
    const version = await this.uow.run(async (m) => {
      await requireTable(this.repo, m, id); // 404 (also for an id that is no UUID)
      const next = await this.repo.advanceVersion(m, id, expected, now);
      if (next === null) {
        const current = await requireTable(this.repo, m, id); // deleted meanwhile: 404
        throw AppError.conflict(
          E.ConcurrentModification,
          `The table is at version ${current.latestVersion}, not ${expected?.join(' or ') || 'the one this update is based on'}: it was modified meanwhile (read it again and retry)`,
        );
      }
      // read under the row lock: what the update is based on is the version just replaced
      const table = (await this.repo.find(m, id))!;
      const previous = (await this.repo.version(m, id, next - 1))!;
      // rows sent without an id keep the identity they had in the latest version
      const definition = await toStoredDefinitionSliced(body, previous.definition);
      if (definition.name !== table.name && (await this.repo.findByName(m, definition.name)))
        throw AppError.conflict(E.DuplicateName, `A table named '${definition.name}' already exists`);
      await this.repo
        .insertVersion(m, {
          tableId: id,
          version: next,
          tenantId,
          definition,
          createdAt: now,
          createdBy: actor,
          comment: commentOrNull(body.comment),
        })
        .catch(
          conflictOnUniqueViolation(E.ConcurrentModification, 'The table was modified concurrently; retry'),
        );
      await this.repo
        .updateTable(m, {
          ...table,
          name: definition.name,
          description: definition.description ?? null,
          latestVersion: next,
          modifiedAt: now,
        })
        .catch(
          conflictOnUniqueViolation(E.DuplicateName, `A table named '${definition.name}' already exists`),
        );
      await this.repo.audit(m, {
        tenantId,
        tableId: id,
        tableName: definition.name,
        action: 'Update',
        actor,
        version: next,
        comment: commentOrNull(body.comment),
        changesSummary: summarizeChange(
          await diffVersionsSliced(next - 1, previous.definition, next, definition),
        ),
        timestamp: now,
      });
      return { next, definition };
    });
    this.cache.invalidate(tenantId, id);
    await this.publish(id, tenantId, version.next, 'updated');
    this.evaluation.precompile(tenantId, id, version.next, version.definition);
    return { id, version: version.next, modifiedAt: now.toISOString() };
  }

  async remove(id: string): Promise<void> {
    const tenantId = RequestContext.tenantId();
    await this.uow.run(async (m) => {
      const table = await requireTable(this.repo, m, id);
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

  /**
   * Creates each table, each in its own transaction (a table is written whole or not at all); a duplicate
   * name is `skipped`, an invalid one `failed` with its error (a string no database stores, from an
   * uploaded file, fails naming its field). More tables than `DecisionTables:MaxImportTables` is a 413
   * IMPORT_TOO_MANY_TABLES before any is created; when some failed and none was created, 400
   * IMPORT_FAILED naming each failed table (`details`), so nothing is a success that wrote nothing. Parts
   * of the file that are no table (`ignored`) are listed too, as `ignored` results.
   */
  async importMany(definitions: unknown[], ignored: { name: string; reason: string }[] = []) {
    if (definitions.length > this.maxImportTables)
      throw new AppError(
        413,
        E.ImportTooManyTables,
        `The import holds ${definitions.length} tables (at most ${this.maxImportTables}, DecisionTables:MaxImportTables)`,
      );
    const results: ImportResult[] = [];
    for (const def of definitions) {
      const name =
        typeof (def as { name?: unknown })?.name === 'string' ? (def as { name: string }).name : '';
      try {
        if (typeof def !== 'object' || def === null || Array.isArray(def))
          throw invalidTable([
            { rowId: null, column: null, message: 'A table definition must be an object' },
          ]);
        const unstorable = findUnstorableText(def, 'table');
        if (unstorable) throw unstorableTextError(unstorable);
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
    for (const part of ignored)
      results.push({ name: part.name, id: null, status: 'ignored', error: part.reason });
    const count = (status: ImportResult['status']) => results.filter((r) => r.status === status).length;
    const outcome = {
      imported: count('success'),
      skipped: count('skipped'),
      failed: count('failed'),
      results,
    };
    if (outcome.failed > 0 && outcome.imported === 0)
      throw AppError.badRequest(
        E.ImportFailed,
        `No table was imported: ${outcome.failed} failed` +
          (outcome.skipped ? `, ${outcome.skipped} skipped (a table of that name exists)` : ''),
        results.flatMap((r, i) =>
          r.status === 'failed'
            ? [{ field: `tables[${i}]`, message: `${r.name ? `'${r.name}': ` : ''}${r.error}` }]
            : [],
        ),
      );
    return outcome;
  }

  // ------------------------------------------------------------------ checks of an unsaved definition

  /** Structure, FEEL and analysis of an unsaved definition (a large one on a worker thread). */
  validate(body: unknown): Promise<ValidationResult> {
    return this.workers.validate(body, this.limits);
  }

  /**
   * Overlaps, gaps, redundant rows and completeness of a stored version (the latest by default), on a
   * worker thread for a large table: its stored JSON crosses as the bytes read, never decoded or parsed
   * on this thread.
   */
  async analyzeStored(
    id: string,
    version?: number,
  ): Promise<AnalysisResult & { id: string; version: number }> {
    const { parts, number } = await this.uow.run((m) => loadVersionBytes(this.repo, m, id, version));
    // stored tables were checked against MaxRows when saved: a lowered limit must not stop their analysis
    const result = await this.workers.validateStored(parts, {
      ...this.limits,
      maxRows: Number.MAX_SAFE_INTEGER,
    });
    if (!result.valid) throw invalidTable(result.errors);
    return { id, version: number, ...result.analysis! };
  }

  async analyzeDefinition(body: unknown): Promise<AnalysisResult> {
    const result = await this.workers.validate(body, this.limits);
    if (!result.valid) throw invalidTable(result.errors);
    return result.analysis!;
  }

  // ------------------------------------------------------------------ events

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
