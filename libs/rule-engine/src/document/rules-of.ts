import type { FlowGraph } from '../flow-graph/contract';
import { deepEqual } from '../rulesets/shadow-diff';
import { nonEmptyString, isObject } from './checks';
import type { RuleSetShape } from './shape';

/** A rule as every shape exposes it (used by version documents and the diff). */
export interface RuleItem {
  id: string;
  name: string;
  [field: string]: unknown;
}

function flattenLegacy(rules: unknown[], prefix: string, out: RuleItem[]): void {
  for (const rule of rules) {
    if (!isObject(rule)) continue;
    const id = `${prefix}${String(rule.RuleName)}`;
    const { RuleName, Rules, ...rest } = rule;
    out.push({ id, name: String(RuleName), ...rest });
    if (Array.isArray(Rules)) flattenLegacy(Rules, `${id}/`, out);
  }
}

/** The rules of a (valid) document as `{ id, name, …fields }`, for version documents and the diff. */
export function rulesOf(doc: Record<string, unknown>, shape: RuleSetShape): RuleItem[] {
  const out: RuleItem[] = [];
  switch (shape) {
    case 'rules':
      for (const r of doc.rules as Record<string, unknown>[])
        out.push({ ...r, id: String(r.id), name: String(r.name) });
      break;
    case 'legacy':
      flattenLegacy(doc.Rules as unknown[], '', out);
      break;
    case 'code-based':
      for (const r of doc.rules as Record<string, unknown>[]) {
        const id = nonEmptyString(r.id) ? r.id : String(r.code);
        out.push({ ...r, id, name: nonEmptyString(r.name) ? r.name : String(r.code) });
      }
      break;
    case 'flow-graph':
      for (const n of (doc as unknown as FlowGraph).nodes) out.push({ ...n, id: n.id, name: n.name ?? n.id });
      break;
  }
  if (Array.isArray(doc.decisionTables))
    for (const t of doc.decisionTables as Record<string, unknown>[])
      out.push({ id: `decisionTable:${String(t.name)}`, name: String(t.name), table: t });
  return out;
}

export interface RuleSetDiff {
  fromVersion: number;
  toVersion: number;
  changes: {
    added: { id: string; name: string }[];
    modified: { id: string; name: string; fieldChanges: Record<string, { old: unknown; new: unknown }> }[];
    removed: { id: string; name: string }[];
  };
}

/** JSON equality: key order does not count, an absent field equals null. */
const same = (a: unknown, b: unknown) => deepEqual(a ?? null, b ?? null);

/** Rule-level diff between two versions (by rule id), field by field. */
export function diffRules(
  fromVersion: number,
  from: RuleItem[],
  toVersion: number,
  to: RuleItem[],
): RuleSetDiff {
  const before = new Map(from.map((r) => [r.id, r]));
  const after = new Map(to.map((r) => [r.id, r]));
  const added = to.filter((r) => !before.has(r.id)).map((r) => ({ id: r.id, name: r.name }));
  const removed = from.filter((r) => !after.has(r.id)).map((r) => ({ id: r.id, name: r.name }));
  const modified: RuleSetDiff['changes']['modified'] = [];
  for (const r of to) {
    const old = before.get(r.id);
    if (!old) continue;
    const fieldChanges: Record<string, { old: unknown; new: unknown }> = {};
    for (const field of new Set([...Object.keys(old), ...Object.keys(r)])) {
      if (field === 'id') continue;
      if (!same(old[field], r[field]))
        fieldChanges[field] = { old: old[field] ?? null, new: r[field] ?? null };
    }
    if (Object.keys(fieldChanges).length) modified.push({ id: r.id, name: r.name, fieldChanges });
  }
  return { fromVersion, toVersion, changes: { added, modified, removed } };
}
