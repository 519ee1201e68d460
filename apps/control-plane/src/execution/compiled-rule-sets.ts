import {
  compileRuleSet,
  type CodeRuleResolver,
  type CompiledRuleSet,
  type RuleSetShapeName,
} from '@arbiter/rule-engine';
import { Inject, Injectable, Optional } from '@nestjs/common';
import { RuleEngineSettings } from './execution.settings';
import { DecisionTableClient } from './adapters/decision-table-client';
import { HttpConnectorInvoker } from './adapters/http-connectors';
import { ExecutionErrorCodes, ExecutionErrors, ExecutionProblem } from './execution-errors';
import { ExecutableVersion, RuleSetVersions } from './rule-set-versions';

/** DI token of the code-based rules' implementations (the rule library). */
export const CODE_RULES = Symbol('arbiter:code-rules');

interface Entry {
  compiled: Promise<CompiledRuleSet>;
  /** Resolved value once compiled: the hot path reads it without awaiting. */
  ready?: CompiledRuleSet;
  /** tenant + table id of every stored table the version uses. */
  tables: Set<string>;
  /** The cache's clock at the last use (least recently used goes first). */
  usedAt: number;
  /** Out of the cache (evicted, invalidated, failed): a version object that still points here looks again. */
  dropped: boolean;
}

/**
 * Compiled rule sets per tenant, workflow and version (versions are immutable, so an entry never goes
 * stale by itself), LRU-bounded by `RuleEngineOptions:CompiledCacheCapacity`. A targeted canary
 * version is simply another key. Entries that use a stored decision table are dropped when
 * `arbiter.decision-table.changed` names it. Sub flows resolve the other workflow's active version at
 * run time through the same cache.
 *
 * A hit costs a weak-map lookup by the version object (the stored versions' cache hands out the same
 * object while it holds the version) and a clock tick: no key is built and nothing moves; the least
 * recently used entry is looked for only when a compilation makes the cache overflow.
 */
@Injectable()
export class CompiledRuleSets {
  private readonly entries = new Map<string, Entry>();
  private readonly byVersion = new WeakMap<ExecutableVersion, Entry>();
  private clock = 0;
  hits = 0;
  misses = 0;
  compilations = 0;
  evictions = 0;
  invalidations = 0;

  constructor(
    @Inject(RuleEngineSettings) private readonly settings: RuleEngineSettings,
    @Inject(RuleSetVersions) private readonly versions: RuleSetVersions,
    @Inject(DecisionTableClient) private readonly tables: DecisionTableClient,
    @Inject(HttpConnectorInvoker) private readonly connectors: HttpConnectorInvoker,
    @Optional() @Inject(CODE_RULES) private readonly codeRules?: CodeRuleResolver,
  ) {}

  get size() {
    return this.entries.size;
  }

  /** The compiled form of a stored version: synchronous when already compiled (the hot path). */
  get(version: ExecutableVersion): CompiledRuleSet | Promise<CompiledRuleSet> {
    let entry = this.byVersion.get(version);
    if (entry === undefined || entry.dropped) {
      entry = this.entries.get(keyOf(version));
      if (entry) this.byVersion.set(version, entry);
    }
    if (entry) {
      this.hits++;
      entry.usedAt = ++this.clock;
      return entry.ready ?? entry.compiled;
    }
    this.misses++;
    return this.compile(keyOf(version), version);
  }

  /** Compiles a document that is not stored (dry-run of a `ruleSet`); not cached. */
  compileDocument(
    tenantId: string,
    workflowName: string,
    shape: RuleSetShapeName,
    document: Record<string, unknown>,
  ): Promise<CompiledRuleSet> {
    return compileRuleSet(document, shape, this.context(tenantId, workflowName, new Set()));
  }

  /** Drops every compiled version that uses the table. */
  onTableChanged(tenantId: string, tableId: string): number {
    this.tables.forget(tenantId, tableId);
    const tableKey = `${tenantId}\u0000${tableId}`;
    let dropped = 0;
    for (const [key, entry] of this.entries)
      if (entry.tables.has(tableKey)) {
        this.drop(key, entry);
        dropped++;
      }
    this.invalidations += dropped;
    return dropped;
  }

  clear(tenantId?: string) {
    for (const [key, entry] of [...this.entries])
      if (!tenantId || key.startsWith(`${tenantId}\u0000`)) this.drop(key, entry);
  }

  private drop(key: string, entry: Entry) {
    entry.dropped = true;
    if (this.entries.get(key) === entry) this.entries.delete(key);
  }

  private compile(key: string, version: ExecutableVersion): Promise<CompiledRuleSet> {
    const tables = new Set<string>();
    const entry: Entry = {
      tables,
      usedAt: ++this.clock,
      dropped: false,
      compiled: compileRuleSet(
        version.document,
        version.shape as RuleSetShapeName,
        this.context(version.tenantId, version.workflowName, tables),
      ).catch((error: Error) => {
        this.drop(key, entry);
        throw ExecutionErrors.notExecutable(version.workflowName, version.version, error);
      }),
    };
    this.compilations++;
    entry.compiled.then((compiled) => (entry.ready = compiled)).catch(() => undefined);
    this.entries.set(key, entry);
    this.byVersion.set(version, entry);
    while (this.entries.size > this.settings.compiledCacheCapacity) {
      this.evictLeastRecentlyUsed();
      this.evictions++;
    }
    return entry.compiled;
  }

  private evictLeastRecentlyUsed() {
    let oldest: [string, Entry] | undefined;
    for (const pair of this.entries) if (!oldest || pair[1].usedAt < oldest[1].usedAt) oldest = pair;
    if (oldest) this.drop(oldest[0], oldest[1]);
  }

  private context(tenantId: string, workflowName: string, tables: Set<string>) {
    return {
      workflowName,
      resolveDecisionTable: async (ref: { id?: string; name?: string; version?: number }) => {
        const table = await this.tables.resolve(tenantId, ref);
        tables.add(`${tenantId}\u0000${table.id}`);
        return table;
      },
      resolveSubFlow: async (subWorkflow: string, pinned: number | undefined) => {
        const target =
          pinned !== undefined
            ? await this.versions.byNumber(tenantId, subWorkflow, pinned)
            : (await this.versions.active(tenantId, subWorkflow)).version;
        if (!target)
          throw new ExecutionProblem(
            ExecutionErrorCodes.SubFlowNotFound,
            pinned !== undefined
              ? `sub flow '${subWorkflow}' has no version ${pinned}`
              : `sub flow '${subWorkflow}' has no active version`,
          );
        return this.get(target);
      },
      connectors: this.connectors,
      codeRules: this.codeRules,
    };
  }
}

function keyOf(version: ExecutableVersion): string {
  return `${version.tenantId}\u0000${version.workflowName}\u0000${version.version}`;
}
