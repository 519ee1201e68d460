/**
 * Decision-table evaluation on @arbiter/rule-engine: rule matching uses its matcher (each table's
 * cells are classified and indexed once, cached per table; only cells the index cannot decide are
 * tested with the model's compiled FEEL), and the hit policies (U, A, P, F, R, O, C with SUM / COUNT /
 * MIN / MAX) are its one implementation, over FEEL values (`FEEL_VALUES`). What stays here is DMN's
 * side: input and output values constraints, default output entries, results as FEEL values, and
 * violations reported as warnings with a null result. Another engine can still replace this through
 * DmnEvaluatorOptions.decisionTable.
 */
import { FeelContext, FeelValue, Scope } from '@arbiter/feel';
import {
  FEEL_VALUES,
  HIT_POLICY_VIOLATED,
  HitPolicy,
  MatchedRules,
  RowMatcher,
  aggregate,
  aggregationOf,
  cellShape,
  comparePriority,
  isSingleHit,
  noMatchValue,
  normalizeHitPolicy,
  orderRules,
  outputRank,
  selectRule,
} from '@arbiter/rule-engine';
import type { DmnEvaluator } from './evaluator';
import type { DecisionTable } from './model';

interface MatchContext {
  scope: Scope;
  ev: DmnEvaluator;
}

const matchers = new WeakMap<DecisionTable, RowMatcher<MatchContext>>();

/** The table's compiled matcher (built once per parsed table). */
function matcherFor(table: DecisionTable): RowMatcher<MatchContext> {
  let matcher = matchers.get(table);
  if (!matcher) {
    const width = table.inputs.length;
    const entry = (r: number, k: number) => table.rules[r].inputEntries[k] ?? '-';
    matcher = new RowMatcher<MatchContext>(
      table.rules.map((rule) => table.inputs.map((_, k) => cellShape(rule.inputEntries[k] ?? '-'))),
      width,
      (r, k, value, { scope, ev }) => ev.unaryTests(entry(r, k))?.testIn(value as FeelValue, scope) ?? null,
    );
    matchers.set(table, matcher);
  }
  return matcher;
}

const hitPolicies = new WeakMap<DecisionTable, HitPolicy | null>();

/** The table's hit policy (DMN name or letter, with its aggregation), null when unknown. */
function hitPolicyOf(table: DecisionTable): HitPolicy | null {
  let policy = hitPolicies.get(table);
  if (policy === undefined)
    hitPolicies.set(table, (policy = normalizeHitPolicy(table.hitPolicy, table.aggregation)));
  return policy;
}

export function evaluateDecisionTable(table: DecisionTable, scope: Scope, ev: DmnEvaluator): FeelValue {
  const inputs = table.inputs.map((i) => {
    const c = i.expression.trim() ? ev.expression(i.expression) : null;
    const v = c ? c.evaluateIn(scope) : null;
    return ev.coerce(v, i.typeRef) ?? v;
  });
  // input values constraints: a value outside inputValues is an error
  for (let k = 0; k < table.inputs.length; k++) {
    const iv = table.inputs[k].inputValues;
    if (iv && inputs[k] !== null) {
      const t = ev.unaryTests(iv);
      if (t && t.testIn(inputs[k], scope) !== true) {
        ev.warnings?.push(`input '${table.inputs[k].expression}' is not one of the allowed values`);
        return null;
      }
    }
  }
  const matched = matcherFor(table).matchAll(inputs, { scope, ev });
  const single = table.outputs.length === 1;
  const outputOf = (r: number): FeelValue | null => {
    const rule = table.rules[r];
    const vals = table.outputs.map((o, k) => {
      const text = rule.outputEntries[k] ?? '';
      const c = text.trim() ? ev.expression(text) : null;
      const v = c ? c.evaluateIn(scope) : null;
      const coerced = ev.coerce(v, o.typeRef);
      if (o.outputValues && coerced !== null) {
        const t = ev.unaryTests(o.outputValues);
        if (t && t.testIn(coerced, scope) !== true) {
          ev.warnings?.push(`output value not allowed by ${o.outputValues}`);
          return null;
        }
      }
      return coerced;
    });
    if (single) return vals[0];
    const ctx: FeelContext = {};
    table.outputs.forEach((o, k) => (ctx[o.name ?? `output${k + 1}`] = vals[k]));
    return ctx;
  };
  const defaults = (): FeelValue => {
    if (table.outputs.every((o) => !o.defaultOutputEntry)) return null;
    const vals = table.outputs.map((o) => {
      const c = o.defaultOutputEntry ? ev.expression(o.defaultOutputEntry) : null;
      return c ? c.evaluateIn(scope) : null;
    });
    if (single) return vals[0];
    const ctx: FeelContext = {};
    table.outputs.forEach((o, k) => (ctx[o.name ?? `output${k + 1}`] = vals[k]));
    return ctx;
  };
  const policy = hitPolicyOf(table);
  if (!policy) {
    ev.warnings?.push(
      `unknown hit policy ${table.hitPolicy}${table.aggregation ? ` ${table.aggregation}` : ''}`,
    );
    return null;
  }
  if (matched.length === 0) return defaults() ?? (noMatchValue(policy) as FeelValue);
  // each matched rule's output is evaluated once, when a policy first needs it
  const outputs = new Map<number, FeelValue | null>();
  const output = (r: number): FeelValue | null => {
    if (!outputs.has(r)) outputs.set(r, outputOf(r));
    return outputs.get(r)!;
  };
  // PRIORITY / OUTPUT ORDER: a rule's ranks in its outputs' value lists (no rule priority in DMN)
  const priorityKey = (r: number): number[] =>
    table.outputs.map((o) => {
      if (!o.outputValues) return 0;
      const list = ev.expression('[' + o.outputValues + ']')?.evaluateIn(scope);
      if (!Array.isArray(list)) return 0;
      const v = single ? output(r) : (output(r) as FeelContext)?.[o.name ?? ''];
      return outputRank(list, v ?? null, FEEL_VALUES);
    });
  const ranks = new Map<number, number[]>();
  const rankOf = (r: number): number[] => {
    let rank = ranks.get(r);
    if (!rank) ranks.set(r, (rank = priorityKey(r)));
    return rank;
  };
  const rules: MatchedRules = {
    output,
    compareRank: (a, b) => comparePriority(rankOf(a), rankOf(b)),
  };
  if (isSingleHit(policy)) {
    const r = selectRule(policy, matched, matched.length, rules, FEEL_VALUES);
    if (r !== HIT_POLICY_VIOLATED) return output(r);
    ev.warnings?.push(
      policy === 'Unique'
        ? 'UNIQUE hit policy: more than one rule matched'
        : 'ANY hit policy: matched rules have different outputs',
    );
    return null;
  }
  const ordered = Array.from(orderRules(policy, matched, matched.length, rules), output);
  const agg = aggregationOf(policy);
  if (!agg) return ordered;
  if (agg !== 'COUNT' && !single) {
    ev.warnings?.push('aggregation needs a single output');
    return null;
  }
  return aggregate(agg, ordered, ordered.length, FEEL_VALUES) as FeelValue;
}
