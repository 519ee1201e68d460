import type { DecisionTableDefinition, DecisionTableRef } from '@arbiter/rule-engine';
import { Inject, Injectable } from '@nestjs/common';
import { RuleEngineSettings } from '../execution.settings';
import { ExecutionErrorCodes, ExecutionProblem } from '../execution-errors';

interface StoredTable extends DecisionTableDefinition {
  id: string;
  version: number;
}

/**
 * Fetches the stored decision tables that flow nodes reference (`tableRef: { id | name, version? }`)
 * from the decisions service (`RuleEngineOptions:DecisionTablesUrl`), as the rule set's tenant. Tables
 * are cached per tenant and reference until `arbiter.decision-table.changed` names them; the
 * compiled rule sets that use a table are dropped with it (`onTableChanged`).
 */
@Injectable()
export class DecisionTableClient {
  private readonly cache = new Map<string, Promise<StoredTable>>();
  /** tenant + table id → cache keys that resolved to it (a name reference learns its id on load). */
  private readonly keysByTable = new Map<string, Set<string>>();
  fetches = 0;

  constructor(@Inject(RuleEngineSettings) private readonly settings: RuleEngineSettings) {}

  resolve(tenantId: string, ref: DecisionTableRef): Promise<StoredTable> {
    const key = `${tenantId}\u0000${ref.id ? `id:${ref.id}` : `name:${ref.name}`}\u0000${ref.version ?? 'latest'}`;
    let pending = this.cache.get(key);
    if (!pending) {
      pending = this.fetch(tenantId, ref).then((table) => {
        const tableKey = `${tenantId}\u0000${table.id}`;
        const keys = this.keysByTable.get(tableKey) ?? new Set<string>();
        keys.add(key);
        this.keysByTable.set(tableKey, keys);
        return table;
      });
      pending.catch(() => this.cache.delete(key));
      this.cache.set(key, pending);
    }
    return pending;
  }

  /** Forgets a table (all references to it); answers whether anything was cached. */
  forget(tenantId: string, tableId: string): boolean {
    const tableKey = `${tenantId}\u0000${tableId}`;
    const keys = this.keysByTable.get(tableKey);
    if (!keys) return false;
    for (const key of keys) this.cache.delete(key);
    this.keysByTable.delete(tableKey);
    return true;
  }

  private async fetch(tenantId: string, ref: DecisionTableRef): Promise<StoredTable> {
    const base = this.settings.decisionTablesUrl.replace(/\/+$/, '');
    const version = ref.version;
    const path = ref.id
      ? `/api/v1/decision-tables/${encodeURIComponent(ref.id)}${version ? `/versions/${version}` : ''}`
      : `/api/v1/decision-tables/by-name/${encodeURIComponent(ref.name ?? '')}${version ? `?version=${version}` : ''}`;
    const label = ref.id ? `id '${ref.id}'` : `name '${ref.name}'`;
    this.fetches++;
    let response: Response;
    try {
      response = await fetch(base + path, {
        headers: {
          'x-tenant-id': tenantId,
          accept: 'application/json',
          ...(this.settings.decisionTablesApiKey ? { 'x-api-key': this.settings.decisionTablesApiKey } : {}),
        },
        signal: AbortSignal.timeout(5000),
      });
    } catch (error) {
      throw new ExecutionProblem(
        ExecutionErrorCodes.DecisionTablesUnavailable,
        `decision table ${label}: the decisions service at ${base} did not answer (${(error as Error).message})`,
      );
    }
    if (response.status === 404)
      throw new ExecutionProblem(
        ExecutionErrorCodes.DecisionTableNotFound,
        `decision table ${label} does not exist`,
      );
    if (response.status === 401 || response.status === 403)
      throw new ExecutionProblem(
        ExecutionErrorCodes.DecisionTablesUnauthorized,
        `decision table ${label}: the decisions service refused the control plane's credentials (${response.status}); ` +
          'set RuleEngineOptions:DecisionTablesApiKey to a service key of that service',
      );
    if (!response.ok)
      throw new ExecutionProblem(
        ExecutionErrorCodes.DecisionTablesUnavailable,
        `decision table ${label}: the decisions service answered ${response.status}`,
      );
    return (await response.json()) as StoredTable;
  }
}
