import {
  runSliced,
  runToEnd,
  STEP_EVERY,
  type InputColumn,
  type OutputColumn,
  type Steps,
} from '@arbiter/rule-engine';
import { randomUUID } from 'node:crypto';

/** A table definition as stored per version (row ids assigned, priorities filled). */
export interface StoredDefinition {
  name: string;
  description?: string;
  hitPolicy: string;
  inputColumns: InputColumn[];
  outputColumns: OutputColumn[];
  rows: StoredRow[];
}

export interface StoredRow {
  id: string;
  priority: number;
  inputConditions: Record<string, string>;
  outputs: Record<string, unknown>;
  /** outputs the row computes with FEEL (present only when it has some) */
  outputExpressions?: Record<string, string>;
}

/** Full table (latest or one version), as GET returns it. */
export interface DecisionTableView extends StoredDefinition {
  id: string;
  version: number;
  createdAt: string;
  modifiedAt: string;
  tenantId: string;
}

export interface TableSummary {
  id: string;
  name: string;
  description: string | null;
  inputColumnCount: number;
  outputColumnCount: number;
  rowCount: number;
  version: number;
  updatedAt: string;
  tenantId: string;
}

/**
 * Fills what the service assigns: row ids (see `assignRowIds`), priorities (default 0); `-` for absent
 * conditions is left implicit. `previous`: the latest stored version, when this is an update.
 */
export function toStoredDefinition(
  input: Record<string, unknown>,
  previous?: StoredDefinition,
): StoredDefinition {
  return runToEnd(storedDefinitionSteps(input, previous));
}

/** `toStoredDefinition` in slices of the event loop (a 100,000-row save holds no other request). */
export function toStoredDefinitionSliced(
  input: Record<string, unknown>,
  previous?: StoredDefinition,
): Promise<StoredDefinition> {
  return runSliced(storedDefinitionSteps(input, previous));
}

function* storedDefinitionSteps(
  input: Record<string, unknown>,
  previous?: StoredDefinition,
): Steps<StoredDefinition> {
  const raw = input.rows as Record<string, unknown>[];
  const ids = yield* rowIdSteps(raw, previous?.rows ?? []);
  const rows = new Array<StoredRow>(raw.length);
  for (let i = 0; i < raw.length; i++) {
    const row = raw[i];
    const computed = row.outputExpressions as Record<string, string> | undefined | null;
    rows[i] = {
      id: ids[i],
      priority: typeof row.priority === 'number' ? row.priority : 0,
      inputConditions: (row.inputConditions as Record<string, string>) ?? {},
      outputs: (row.outputs as Record<string, unknown>) ?? {},
      ...(computed && Object.keys(computed).length ? { outputExpressions: computed } : {}),
    };
    if (i % STEP_EVERY === STEP_EVERY - 1) yield;
  }
  return {
    name: String(input.name).trim(),
    ...(typeof input.description === 'string' ? { description: input.description } : {}),
    hitPolicy: String(input.hitPolicy),
    inputColumns: input.inputColumns as InputColumn[],
    outputColumns: input.outputColumns as OutputColumn[],
    rows,
  };
}

const explicitId = (row: Record<string, unknown>): string | undefined =>
  typeof row.id === 'string' && row.id.trim() ? row.id : undefined;

/** JSON of an object with its keys sorted (key order does not make two rows differ). */
function canonical(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value ?? null);
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  const keys = Object.keys(value).sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`).join(',')}}`;
}

/** A row's conditions as a comparable text: blank and `-` cells are "any" and left out, cells trimmed. */
function conditionsKey(conditions: unknown): string {
  const kept: Record<string, string> = Object.create(null);
  if (conditions && typeof conditions === 'object')
    for (const [column, cell] of Object.entries(conditions)) {
      const text = typeof cell === 'string' ? cell.trim() : cell;
      if (text === '' || text === '-' || text === null || text === undefined) continue;
      kept[column] = text as string;
    }
  return canonical(kept);
}

const resultKey = (row: Record<string, unknown> | StoredRow): string =>
  canonical({ outputs: row.outputs ?? {}, outputExpressions: row.outputExpressions ?? {} });

/**
 * Row identity across versions, so that a diff's `modifiedRows` are the rows that changed:
 * 1. a row sent with an id keeps it;
 * 2. a row without an id takes the id of the previous version's row at the same position when that row
 *    has the same conditions (its outputs or priority may have changed);
 * 3. else the id of the first previous row with the same conditions (a row that moved);
 * 4. else the id of the previous row at the same position when it has the same outputs (its conditions
 *    were edited);
 * 5. else a new id.
 * A previous row gives its id to one row at most, never to one when a row of the new version carries
 * that id explicitly. Conditions compare trimmed, with `-` and blank cells left out; key order is ignored.
 */
export function assignRowIds(rows: Record<string, unknown>[], previous: StoredRow[]): string[] {
  return runToEnd(rowIdSteps(rows, previous));
}

function* rowIdSteps(rows: Record<string, unknown>[], previous: StoredRow[]): Steps<string[]> {
  const ids = new Array<string | undefined>(rows.length);
  const taken = new Set<string>();
  for (let i = 0; i < rows.length; i++) {
    const id = (ids[i] = explicitId(rows[i]));
    if (id !== undefined && previous.length > 0) taken.add(id);
    if (i % STEP_EVERY === STEP_EVERY - 1) yield;
  }
  // a new table: every row keeps its id or gets a new one (nothing to match conditions against)
  if (previous.length === 0) return yield* newIds(ids);
  const free = (row: StoredRow | undefined): row is StoredRow => row !== undefined && !taken.has(row.id);
  const claim = (i: number, row: StoredRow) => {
    ids[i] = row.id;
    taken.add(row.id);
  };
  const keys = new Array<string>(rows.length);
  for (let i = 0; i < rows.length; i++) {
    keys[i] = conditionsKey(rows[i].inputConditions);
    if (i % STEP_EVERY === STEP_EVERY - 1) yield;
  }
  const previousKeys = new Array<string>(previous.length);
  for (let i = 0; i < previous.length; i++) {
    previousKeys[i] = conditionsKey(previous[i].inputConditions);
    if (i % STEP_EVERY === STEP_EVERY - 1) yield;
  }
  // 2. same position, same conditions
  for (let i = 0; i < rows.length; i++) {
    if (ids[i] === undefined && free(previous[i]) && previousKeys[i] === keys[i]) claim(i, previous[i]);
    if (i % STEP_EVERY === STEP_EVERY - 1) yield;
  }
  // 3. same conditions elsewhere, in order (each queue read from its head: no shift of a long array)
  const byConditions = new Map<string, { rows: StoredRow[]; next: number }>();
  for (let k = 0; k < previous.length; k++) {
    const row = previous[k];
    if (free(row)) {
      const queue = byConditions.get(previousKeys[k]);
      if (queue) queue.rows.push(row);
      else byConditions.set(previousKeys[k], { rows: [row], next: 0 });
    }
    if (k % STEP_EVERY === STEP_EVERY - 1) yield;
  }
  for (let i = 0; i < rows.length; i++) {
    if (i % STEP_EVERY === STEP_EVERY - 1) yield;
    if (ids[i] !== undefined) continue;
    const queue = byConditions.get(keys[i]);
    while (queue && queue.next < queue.rows.length) {
      const row = queue.rows[queue.next++];
      if (free(row)) {
        claim(i, row);
        break;
      }
    }
  }
  yield;
  // 4. same position, same outputs
  for (let i = 0; i < rows.length; i++) {
    if (ids[i] === undefined && free(previous[i]) && resultKey(previous[i]) === resultKey(rows[i]))
      claim(i, previous[i]);
    if (i % STEP_EVERY === STEP_EVERY - 1) yield;
  }
  // 5. new rows
  return yield* newIds(ids);
}

/** The ids, a new one where there is none. */
function* newIds(ids: (string | undefined)[]): Steps<string[]> {
  const out = new Array<string>(ids.length);
  for (let i = 0; i < ids.length; i++) {
    out[i] = ids[i] ?? randomUUID();
    if (i % STEP_EVERY === STEP_EVERY - 1) yield;
  }
  return out;
}
