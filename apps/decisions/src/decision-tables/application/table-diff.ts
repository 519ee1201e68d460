import { own, runSliced, runToEnd, setOwn, STEP_EVERY, Steps } from '@arbiter/rule-engine';
import { StoredDefinition } from './table-model';

type Change = { from: unknown; to: unknown };

export interface VersionDiff {
  fromVersion: number;
  toVersion: number;
  changes: Record<string, Change>;
  addedRows: {
    rowId: string;
    inputConditions: Record<string, string>;
    outputs: Record<string, unknown>;
    outputExpressions?: Record<string, string>;
  }[];
  removedRows: string[];
  modifiedRows: { rowId: string; changes: Record<string, Record<string, Change> | Change> }[];
}

const same = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

/** Keys whose values differ (column names are user text: own properties only, `__proto__` a key). */
function fieldChanges(from: Record<string, unknown>, to: Record<string, unknown>): Record<string, Change> {
  const out: Record<string, Change> = {};
  for (const key of new Set([...Object.keys(from), ...Object.keys(to)])) {
    const a = own(from, key);
    const b = own(to, key);
    if (!same(a, b)) setOwn(out, key, { from: a ?? null, to: b ?? null });
  }
  return out;
}

/**
 * Spec shape: `changes` holds table-level fields that differ (`name`, `hitPolicy`, also
 * `description`, `inputColumns`, `outputColumns`), rows are matched by id (rows sent without one keep
 * their id across versions: see `assignRowIds`).
 */
export function diffVersions(
  fromVersion: number,
  a: StoredDefinition,
  toVersion: number,
  b: StoredDefinition,
): VersionDiff {
  return runToEnd(diffSteps(fromVersion, a, toVersion, b));
}

/** `diffVersions` in slices of the event loop (a 100,000-row update's audit summary holds nobody). */
export function diffVersionsSliced(
  fromVersion: number,
  a: StoredDefinition,
  toVersion: number,
  b: StoredDefinition,
): Promise<VersionDiff> {
  return runSliced(diffSteps(fromVersion, a, toVersion, b));
}

function* diffSteps(
  fromVersion: number,
  a: StoredDefinition,
  toVersion: number,
  b: StoredDefinition,
): Steps<VersionDiff> {
  const changes: Record<string, Change> = {};
  for (const key of ['name', 'hitPolicy', 'description', 'inputColumns', 'outputColumns'] as const)
    if (!same(a[key], b[key])) changes[key] = { from: a[key] ?? null, to: b[key] ?? null };
  const before = new Map<string, StoredDefinition['rows'][number]>();
  for (let i = 0; i < a.rows.length; i++) {
    before.set(a.rows[i].id, a.rows[i]);
    if (i % STEP_EVERY === STEP_EVERY - 1) yield;
  }
  const after = new Set<string>();
  const addedRows: VersionDiff['addedRows'] = [];
  for (let i = 0; i < b.rows.length; i++) {
    const r = b.rows[i];
    after.add(r.id);
    if (!before.has(r.id))
      addedRows.push({
        rowId: r.id,
        inputConditions: r.inputConditions,
        outputs: r.outputs,
        ...(r.outputExpressions ? { outputExpressions: r.outputExpressions } : {}),
      });
    if (i % STEP_EVERY === STEP_EVERY - 1) yield;
  }
  const removedRows: string[] = [];
  for (let i = 0; i < a.rows.length; i++) {
    if (!after.has(a.rows[i].id)) removedRows.push(a.rows[i].id);
    if (i % STEP_EVERY === STEP_EVERY - 1) yield;
  }
  const modifiedRows: VersionDiff['modifiedRows'] = [];
  yield;
  for (let i = 0; i < b.rows.length; i++) {
    if (i % STEP_EVERY === STEP_EVERY - 1) yield;
    const row = b.rows[i];
    const old = before.get(row.id);
    if (!old) continue;
    const rowChanges: Record<string, Record<string, Change> | Change> = {};
    const outputs = fieldChanges(old.outputs, row.outputs);
    const conditions = fieldChanges(old.inputConditions, row.inputConditions);
    if (Object.keys(outputs).length) rowChanges.outputs = outputs;
    if (Object.keys(conditions).length) rowChanges.inputConditions = conditions;
    const computed = fieldChanges(old.outputExpressions ?? {}, row.outputExpressions ?? {});
    if (Object.keys(computed).length) rowChanges.outputExpressions = computed;
    if (old.priority !== row.priority) rowChanges.priority = { from: old.priority, to: row.priority };
    if (Object.keys(rowChanges).length) modifiedRows.push({ rowId: row.id, changes: rowChanges });
  }
  return { fromVersion, toVersion, changes, addedRows, removedRows, modifiedRows };
}

/** One-line summary for the audit trail. */
export function summarizeChange(diff: VersionDiff): string {
  const parts: string[] = [];
  const fields = Object.keys(diff.changes);
  if (fields.length) parts.push(`changed ${fields.join(', ')}`);
  if (diff.addedRows.length) parts.push(`${diff.addedRows.length} row(s) added`);
  if (diff.removedRows.length) parts.push(`${diff.removedRows.length} row(s) removed`);
  if (diff.modifiedRows.length) parts.push(`${diff.modifiedRows.length} row(s) modified`);
  return parts.length ? parts.join('; ') : 'no changes';
}
