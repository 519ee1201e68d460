/**
 * The one implementation of the DMN hit policies, for compiled tables (compile.ts) and for
 * `@arbiter/dmn`: names, which matched rule a single-hit policy picks (or that the matches violate it),
 * the order of a multi-hit result, the value of an empty match and the COLLECT aggregations. Callers
 * bring their rules' outputs and ranks (`MatchedRules`) and their value semantics (output-values.ts),
 * and shape the result themselves.
 */
import type { OutputValueSemantics } from './output-values';
import { HIT_POLICIES, HitPolicy } from './types';

export type Aggregation = 'SUM' | 'MIN' | 'MAX' | 'COUNT';

const ALIASES: Record<string, HitPolicy> = {
  U: 'Unique',
  UNIQUE: 'Unique',
  A: 'Any',
  ANY: 'Any',
  F: 'First',
  FIRST: 'First',
  ALL: 'All',
  C: 'Collect',
  COLLECT: 'Collect',
  R: 'RuleOrder',
  RULEORDER: 'RuleOrder',
  O: 'OutputOrder',
  OUTPUTORDER: 'OutputOrder',
  P: 'Priority',
  PRIORITY: 'Priority',
  'C+': 'CollectSum',
  COLLECTSUM: 'CollectSum',
  'C<': 'CollectMin',
  COLLECTMIN: 'CollectMin',
  'C>': 'CollectMax',
  COLLECTMAX: 'CollectMax',
  'C#': 'CollectCount',
  COLLECTCOUNT: 'CollectCount',
};

/**
 * Canonical hit policy name from our names (`RuleOrder`), DMN names (`RULE ORDER`), DMN letters
 * (`U`, `C+`) or DMN hit policy + aggregation (`COLLECT` + `SUM`). Null when unknown.
 */
export function normalizeHitPolicy(hitPolicy: unknown, aggregation?: string | null): HitPolicy | null {
  if (typeof hitPolicy !== 'string') return null;
  const key = hitPolicy.toUpperCase().replace(/[\s_-]+/g, '');
  const policy = ALIASES[key];
  if (!policy) return null;
  if (policy === 'Collect' && aggregation) {
    return ALIASES['COLLECT' + aggregation.toUpperCase().trim()] ?? null;
  }
  return policy;
}

export const isHitPolicy = (v: unknown): v is HitPolicy => HIT_POLICIES.includes(v as HitPolicy);

/** Policies whose result is one row (or a violation). */
export function isSingleHit(policy: HitPolicy): boolean {
  return policy === 'Unique' || policy === 'Any' || policy === 'First' || policy === 'Priority';
}

export function aggregationOf(policy: HitPolicy): Aggregation | null {
  switch (policy) {
    case 'CollectSum':
      return 'SUM';
    case 'CollectMin':
      return 'MIN';
    case 'CollectMax':
      return 'MAX';
    case 'CollectCount':
      return 'COUNT';
    default:
      return null;
  }
}

/** DMN 1.3 notation of a hit policy: `hitPolicy` attribute and `aggregation`. */
export function toDmnHitPolicy(policy: HitPolicy): { hitPolicy: string; aggregation?: string } {
  const agg = aggregationOf(policy);
  if (agg) return { hitPolicy: 'COLLECT', aggregation: agg };
  switch (policy) {
    case 'RuleOrder':
      return { hitPolicy: 'RULE ORDER' };
    case 'OutputOrder':
      return { hitPolicy: 'OUTPUT ORDER' };
    case 'All':
      return { hitPolicy: 'RULE ORDER' };
    default:
      return { hitPolicy: policy.toUpperCase() };
  }
}

/** Lexicographic comparison of priority keys (smaller index in the output value lists wins). */
export function comparePriority(a: ArrayLike<number>, b: ArrayLike<number>): number {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i] - b[i];
  return 0;
}

/** A value's rank in an output value list (its index; after the list when absent; 0 without a list). */
export function outputRank(
  list: readonly unknown[] | null | undefined,
  value: unknown,
  values: OutputValueSemantics,
): number {
  if (!list) return 0;
  const i = list.findIndex((v) => values.equals(v, value));
  return i < 0 ? list.length : i;
}

/** The rules of a table as the hit policies see them; rules are numbered in rule order. */
export interface MatchedRules {
  /** the output of a rule (ANY compares them) */
  output(rule: number): unknown;
  /** PRIORITY, OUTPUT ORDER: negative when rule a outranks rule b, 0 when they tie (rule order decides) */
  compareRank(a: number, b: number): number;
}

/** `selectRule` result when the matches violate the policy (UNIQUE: several; ANY: different outputs). */
export const HIT_POLICY_VIOLATED = -1;

/**
 * The rule a single-hit policy (Unique, Any, First, Priority) picks from `count` matched rules (rule
 * order, count >= 1), or HIT_POLICY_VIOLATED. ANY compares every output with the first, the first
 * included: a FEEL output that is not equal to itself violates it.
 */
export function selectRule(
  policy: HitPolicy,
  matched: ArrayLike<number>,
  count: number,
  rules: MatchedRules,
  values: OutputValueSemantics,
): number {
  switch (policy) {
    case 'Unique':
      return count > 1 ? HIT_POLICY_VIOLATED : matched[0];
    case 'Any': {
      const first = rules.output(matched[0]);
      for (let i = 0; i < count; i++)
        if (!values.equals(rules.output(matched[i]), first)) return HIT_POLICY_VIOLATED;
      return matched[0];
    }
    case 'Priority': {
      let best = matched[0];
      for (let i = 1; i < count; i++) if (rules.compareRank(matched[i], best) < 0) best = matched[i];
      return best;
    }
    default:
      return matched[0];
  }
}

/**
 * The rules a multi-hit policy returns, in result order: OUTPUT ORDER sorts them by rank (ties in rule
 * order) into a new array; RULE ORDER, COLLECT and the aggregations keep `matched` as it is.
 */
export function orderRules(
  policy: HitPolicy,
  matched: ArrayLike<number>,
  count: number,
  rules: MatchedRules,
): ArrayLike<number> {
  if (policy !== 'OutputOrder') return matched;
  const ordered = new Array<number>(count);
  for (let i = 0; i < count; i++) ordered[i] = matched[i];
  return ordered.sort((a, b) => rules.compareRank(a, b) || a - b);
}

/**
 * A policy's value (per output) when no rule matches and no default output applies: null for single-hit
 * policies and SUM / MIN / MAX, 0 for COUNT, a new empty list for the list policies.
 */
export function noMatchValue(policy: HitPolicy): null | 0 | unknown[] {
  if (isSingleHit(policy)) return null;
  const agg = aggregationOf(policy);
  return agg === 'COUNT' ? 0 : agg ? null : [];
}

/**
 * A COLLECT aggregation over the first `count` of `outputs`: the matched rules' values of one output, in
 * rule order. Nulls are skipped (COUNT counts them when `values.count` is `rules`); SUM is null when a
 * value is not a number, MIN / MAX when two values cannot be compared; SUM, MIN and MAX of no value are
 * null.
 */
export function aggregate(
  agg: Aggregation,
  outputs: ArrayLike<unknown>,
  count: number,
  values: OutputValueSemantics,
): unknown {
  if (agg === 'COUNT' && values.count === 'rules') return count;
  let present = 0;
  let best: unknown = null;
  for (let i = 0; i < count; i++) {
    const v = outputs[i];
    if (v === null || v === undefined) continue;
    if (agg === 'SUM') {
      if (!values.isNumber(v)) return null;
    } else if (agg !== 'COUNT') {
      const c =
        present === 0 ? (values.ordersFirstValue ? values.compare(v, v) : 0) : values.compare(v, best);
      if (c === null) return null;
      if (present === 0 || (agg === 'MIN' ? c < 0 : c > 0)) best = v;
    }
    present++;
  }
  if (agg === 'COUNT') return present;
  if (present === 0) return null;
  return agg === 'SUM' ? values.sum(outputs, count) : best;
}
