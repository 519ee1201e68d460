import { DecisionTableChangedEvent, Subjects } from '@arbiter/contracts';
import { AppError, EventBus, RequestContext, UnitOfWork } from '@arbiter/platform';
import {
  AnalysisResult,
  CompiledDecisionTable,
  EvaluationError,
  analyzeTable,
  compileDecisionTableSliced,
} from '@arbiter/rule-engine';
import { Inject, Injectable, OnModuleInit } from '@nestjs/common';
import { DecisionTablesSettings } from '../../settings';
import { DecisionTableErrors as E } from '../errors';
import { DecisionTableRepository } from '../persistence/decision-table.repository';
import { requireAdministrator } from './administrators';
import { CompiledTableCache } from './compiled-table-cache';
import { loadVersion } from './stored-tables';
import { TableLimits, tableLimits } from './table-validation';

export type EvaluationView = ReturnType<CompiledDecisionTable['evaluate']> & { evaluationTimeMs: number };

/**
 * Evaluation of stored tables (the hot evaluate route, execute, the evaluate tool) and analysis of a
 * stored version, through the compiled-table cache: once a table is cached, evaluating its latest
 * version reads no database and returns synchronously. Change events (this replica's and others')
 * drop stale compiled copies.
 */
@Injectable()
export class DecisionTableEvaluationService implements OnModuleInit {
  private readonly limits: TableLimits;
  private readonly maxSteps: number;
  private readonly timeoutMs: number;
  private evaluations = 0;
  /** versions compiled when saved (before any evaluate asked) */
  precompiled = 0;

  constructor(
    @Inject(UnitOfWork) private readonly uow: UnitOfWork,
    @Inject(DecisionTableRepository) private readonly repo: DecisionTableRepository,
    @Inject(EventBus) private readonly bus: EventBus,
    @Inject(CompiledTableCache) private readonly cache: CompiledTableCache,
    @Inject(DecisionTablesSettings) settings: DecisionTablesSettings,
  ) {
    // stored tables were checked against MaxRows when saved; a lowered limit must not stop them running
    this.limits = { ...tableLimits(settings), maxRows: Number.MAX_SAFE_INTEGER };
    this.maxSteps = settings.evaluationStepBudget;
    this.timeoutMs = settings.evaluationTimeoutMs;
  }

  async onModuleInit(): Promise<void> {
    // other replicas' changes (NATS) and our own (in process) drop stale compiled tables
    await this.bus.subscribe(Subjects.DecisionTableChanged, (event) => {
      const data = event.data as DecisionTableChangedEvent;
      // a save announced over NATS reaches its own replica too, after the version was precompiled: a cache
      // whose latest is already the announced version holds nothing stale (no evaluate recompiles it)
      const current = data.change !== 'deleted' && data.version !== null;
      if (current) this.sawVersion(data.tenantId, data.tableId, data.version!);
      else this.newest.delete(`${data.tenantId}\u0000${data.tableId}`);
      if (current && this.cache.latestVersion(data.tenantId, data.tableId) === data.version) return;
      this.cache.invalidate(data.tenantId, data.tableId);
    });
  }

  /** The compiled table if cached (no I/O): the latest version is found through the cache's pointer. */
  private cached(id: string, version?: number): CompiledDecisionTable | undefined {
    const tenantId = RequestContext.tenantId();
    const wanted = version ?? this.cache.latestVersion(tenantId, id);
    return wanted === undefined ? undefined : this.cache.get(tenantId, id, wanted);
  }

  /**
   * Compiles in progress by tenant, table and version: an evaluate arriving while a saved version is
   * being compiled waits for that compile instead of starting a second one.
   */
  private readonly compiling = new Map<string, Promise<CompiledDecisionTable>>();

  /**
   * The newest version saved or announced per table (tenant and id): a compile that ends after a newer
   * version was saved does not put its older version in the cache as the latest.
   */
  private readonly newest = new Map<string, number>();

  private sawVersion(tenantId: string, id: string, version: number): void {
    const key = `${tenantId}\u0000${id}`;
    if (!(this.newest.get(key)! >= version)) this.newest.set(key, version);
  }

  private isNewest(tenantId: string, id: string, version: number): boolean {
    return !(this.newest.get(`${tenantId}\u0000${id}`)! > version);
  }

  /**
   * One compile of a version, in slices of the event loop (`compileDecisionTableSliced`): a 100,000-row
   * table compiles without holding any other request.
   */
  private compileOnce(
    tenantId: string,
    id: string,
    version: number,
    definition: unknown,
  ): Promise<CompiledDecisionTable> {
    const key = `${tenantId}\u0000${id}\u0000${version}`;
    let pending = this.compiling.get(key);
    if (!pending) {
      pending = compileDecisionTableSliced(definition, { limits: this.limits, maxSteps: this.maxSteps });
      this.compiling.set(key, pending);
      const forget = () => this.compiling.delete(key);
      pending.then(forget, forget);
    }
    return pending;
  }

  /** The compiled table (cache first; the latest version needs no database read once cached). */
  async compiled(id: string, version?: number): Promise<CompiledDecisionTable> {
    const hit = this.cached(id, version);
    if (hit) return hit;
    const tenantId = RequestContext.tenantId();
    // the version a save is compiling right now: wait for that compile, without reading back and parsing
    // its stored definition (15 MB of JSON on the event loop for a 100,000-row table)
    const pending = this.compiling.get(
      `${tenantId}\u0000${id}\u0000${version ?? this.newest.get(`${tenantId}\u0000${id}`)}`,
    );
    if (pending) return pending;
    const { table, stored, number } = await this.uow.run((m) => loadVersion(this.repo, m, id, version));
    const compiled = await this.compileOnce(tenantId, id, number, stored.definition);
    // a newer version saved meanwhile is the latest: this one is cached as a past version only
    const latest = number === table.latestVersion && this.isNewest(tenantId, id, number);
    this.cache.put(tenantId, id, number, compiled, latest);
    return compiled;
  }

  /**
   * Compiles a version just saved, after the response and in slices of the event loop, and caches it as
   * the latest, so no evaluate pays for compiling it (one arriving meanwhile waits for this compile). A
   * failure is left to the first evaluate (which compiles again and reports it).
   */
  precompile(tenantId: string, id: string, version: number, definition: unknown): void {
    this.sawVersion(tenantId, id, version);
    setImmediate(() => {
      if (this.cache.latestVersion(tenantId, id) !== undefined && this.cache.get(tenantId, id, version))
        return;
      this.compileOnce(tenantId, id, version, definition).then(
        (compiled) => {
          if (!this.isNewest(tenantId, id, version)) return; // a newer version was saved meanwhile
          this.cache.put(tenantId, id, version, compiled, true);
          this.precompiled++;
        },
        () => {
          /* the first evaluate compiles and reports */
        },
      );
    });
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
    const result = this.run(compiled, input, performance.timeOrigin + start + this.timeoutMs);
    return { ...result, evaluationTimeMs: performance.now() - start };
  }

  /** `POST /{id}/execute`: flat facts in, `{ matchedRows, outputs }` out (the latest version, or `version`). */
  async execute(id: string, facts: unknown, version?: number) {
    if (typeof facts !== 'object' || facts === null || Array.isArray(facts))
      throw AppError.badRequest(E.InvalidInput, 'The body must be an object of input facts');
    const compiled = await this.compiled(id, version);
    const r = this.run(compiled, facts as Record<string, unknown>, Date.now() + this.timeoutMs);
    return { matchedRows: r.matchedRows, outputs: r.outputValues };
  }

  /** One evaluation, cut off at `deadline` (epoch ms) or when its FEEL runs out of steps (422). */
  private run(compiled: CompiledDecisionTable, input: Record<string, unknown>, deadline: number) {
    this.evaluations++;
    try {
      return compiled.evaluate(input, deadline);
    } catch (e) {
      if (e instanceof EvaluationError) {
        if (e.code === 'HIT_POLICY_VIOLATION') throw AppError.unprocessable(E.HitPolicyViolation, e.message);
        if (e.code === 'EVALUATION_BUDGET_EXCEEDED')
          throw AppError.unprocessable(
            E.EvaluationBudgetExceeded,
            `${e.message}: more than ${this.maxSteps} steps (DecisionTables:EvaluationStepBudget)`,
          );
        if (e.code === 'DEADLINE_EXCEEDED')
          throw AppError.unprocessable(
            E.DeadlineExceeded,
            `${e.message}: more than ${this.timeoutMs} ms (DecisionTables:EvaluationTimeoutMs)`,
          );
        throw AppError.badRequest(
          e.code,
          e.message,
          e.column ? [{ field: `input.${e.column}`, message: e.message }] : undefined,
        );
      }
      throw e;
    }
  }

  /** Overlaps, gaps, redundant rows and completeness of a stored version (the latest by default). */
  async analyze(id: string, version?: number): Promise<AnalysisResult & { id: string; version: number }> {
    const compiled = await this.compiled(id, version);
    const v = version ?? this.cache.latestVersion(RequestContext.tenantId(), id) ?? 0;
    return { id, version: v, ...analyzeTable(compiled) };
  }

  /**
   * The replica's counters, across every tenant: for operators only (role `Admin` or `Service` — a service
   * key —, permission `decision-tables.metrics` or `*`), else 403.
   */
  metrics() {
    requireAdministrator('decision-tables.metrics', "This replica's metrics (every tenant's counts)");
    return { compiledCache: this.cache.metrics(), evaluations: this.evaluations };
  }
}
