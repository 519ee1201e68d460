import { AppError } from '@arbiter/platform';
import type { DecisionTableDefinition } from '@arbiter/rule-engine';
import { DecisionTableAuthoringService, DecisionTableView } from '../../decision-tables';
import { ScenarioErrors as E } from '../errors';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Ids of plans, scenarios and runs are UUIDs: anything else names nothing (404, never a uuid-column error). */
export function requireUuid(id: string, code: string, what: string): void {
  if (!UUID.test(id)) throw AppError.notFound(code, `${what} '${String(id).slice(0, 80)}' does not exist`);
}

/** A stored table version (404s from the decision-table feature) and its definition as the engine reads it. */
export async function loadTable(
  tables: DecisionTableAuthoringService,
  tableId: string,
  version?: number,
): Promise<{ table: DecisionTableView; definition: DecisionTableDefinition }> {
  const table = await tables.get(tableId, version);
  const { name, hitPolicy, inputColumns, outputColumns, rows } = table;
  return { table, definition: { name, hitPolicy, inputColumns, outputColumns, rows } };
}

export function optionalVersion(raw: unknown): number | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (typeof raw !== 'number' || !Number.isInteger(raw) || raw < 1)
    throw AppError.badRequest(E.InvalidVersion, 'version must be a positive integer');
  return raw;
}
