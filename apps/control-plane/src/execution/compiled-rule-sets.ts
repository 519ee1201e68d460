import {
  compileRuleSet,
  type CodeRuleResolver,
  type CompiledRuleSet,
  type RuleSetShapeName,
} from '@arbiter/rule-engine';
import { Inject, Injectable, Optional } from '@nestjs/common';
import { RuleEngineSettings } from '../settings/control-plane.settings';
import { DecisionTableClient } from './adapters/decision-table-client';
import { HttpConnectorInvoker } from './adapters/http-connectors';
import { ExecutionErrors, ExecutionProblem } from './execution-errors';
import { ExecutableVersion, RuleSetVersions } from './rule-set-versions';

/** DI token of the code-based rules' implementations (the rule library). */
export const CODE_RULES = Symbol('arbiter:code-rules');

interface Entry {
  compiled: Promise<CompiledRuleSet>;
  /** Resolved value once compiled: the hot path reads it without awaiting. */
  ready?: CompiledRuleSet;
  /** tenant + table id of every stored table the version uses. */
  tables: Set<string>;
}

/**
 * Compiled rule sets per tenant, workflow and version (versions are immutable, so an entry never goes
 * stale by itself), LRU-bounded by `RuleEngineOptions:CompiledCacheCapacity`. A targeted canary
 * version is simply another key. Entries that use a stored decision table are dropped when
 * `arbiter.decision-table.changed` names it. Sub flows resolve the other workflow's active version at
 * run time through the same cache.
 */
@Injectable()
export class CompiledRuleSets {
  private readonly entries = new Map<string, Entry>();
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
    const key = `${version.tenantId}\u0000${version.workflowName}\u0000${version.version}`;
    const entry = this.entries.get(key);
    if (entry) {
      this.hits++;
      // LRU: move to the end
      this.entries.delete(key);
      this.entries.set(key, entry);
      return entry.ready ?? entry.compiled;
    }
    this.misses++;
    return this.compile(key, version);
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
        this.entries.delete(key);
        dropped++;
      }
    this.invalidations += dropped;
    return dropped;
  }

  clear(tenantId?: string) {
    for (const key of [...this.entries.keys()])
      if (!tenantId || key.startsWith(`${tenantId}\u0000`)) this.entries.delete(key);
  }

  private compile(key: string, version: ExecutableVersion): Promise<CompiledRuleSet> {
    const tables = new Set<string>();
    const entry: Entry = {
      tables,
      compiled: compileRuleSet(
        version.document,
        version.shape as RuleSetShapeName,
        this.context(version.tenantId, version.workflowName, tables),
      ).catch((error: Error) => {
        this.entries.delete(key);
        throw ExecutionErrors.notExecutable(version.workflowName, version.version, error);
      }),
    };
    this.compilations++;
    entry.compiled.then((compiled) => (entry.ready = compiled)).catch(() => undefined);
    this.entries.set(key, entry);
    while (this.entries.size > this.settings.compiledCacheCapacity) {
      const oldest = this.entries.keys().next().value as string;
      this.entries.delete(oldest);
      this.evictions++;
    }
    return entry.compiled;
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
            'SUB_FLOW_NOT_FOUND',
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
