/**
 * Decision-table evaluation (hit policies U, A, P, F, R, O, C with SUM/COUNT/MIN/MAX). Rule matching
 * uses the @arbiter/rule-engine compiler: each table's cells are classified and indexed once (cached
 * per table), and only cells the index cannot decide are tested with the model's compiled FEEL.
 * Another engine can still replace this through DmnEvaluatorOptions.decisionTable.
 */
import { FeelContext, FeelValue, Scope, feelCompare, feelEquals, isNumber, builtins } from '@arbiter/feel';
import { RowMatcher, cellShape } from '@arbiter/rule-engine';
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
  const hp = table.hitPolicy.toUpperCase().replace(/\s+/g, ' ');
  const priorityKey = (r: number): number[] =>
    table.outputs.map((o, k) => {
      if (!o.outputValues) return 0;
      const list = ev.expression('[' + o.outputValues + ']')?.evaluateIn(scope);
      const v = single ? outputOf(r) : (outputOf(r) as FeelContext)?.[o.name ?? ''];
      if (!Array.isArray(list)) return 0;
      const i = list.findIndex((x) => feelEquals(x, v ?? null) === true);
      void k;
      return i < 0 ? list.length : i;
    });
  const byPriority = (rs: number[]) => {
    const keys = new Map(rs.map((r) => [r, priorityKey(r)]));
    return [...rs].sort((a, b) => {
      const ka = keys.get(a)!,
        kb = keys.get(b)!;
      for (let i = 0; i < ka.length; i++) if (ka[i] !== kb[i]) return ka[i] - kb[i];
      return a - b;
    });
  };
  if (matched.length === 0) {
    if (
      hp.startsWith('C') ||
      hp === 'RULE ORDER' ||
      hp === 'R' ||
      hp === 'OUTPUT ORDER' ||
      hp === 'O' ||
      hp.startsWith('COLLECT')
    ) {
      const d = defaults();
      if (d !== null) return d;
      if (table.aggregation && table.aggregation.toUpperCase() === 'COUNT') return 0;
      return table.aggregation ? null : [];
    }
    return defaults();
  }
  switch (hp) {
    case 'UNIQUE':
    case 'U':
      if (matched.length > 1) {
        ev.warnings?.push('UNIQUE hit policy: more than one rule matched');
        return null;
      }
      return outputOf(matched[0]);
    case 'ANY':
    case 'A': {
      const outs = matched.map(outputOf);
      if (outs.some((o) => feelEquals(o, outs[0]) !== true)) {
        ev.warnings?.push('ANY hit policy: matched rules have different outputs');
        return null;
      }
      return outs[0];
    }
    case 'FIRST':
    case 'F':
      return outputOf(matched[0]);
    case 'PRIORITY':
    case 'P':
      return outputOf(byPriority(matched)[0]);
    case 'RULE ORDER':
    case 'R':
      return matched.map(outputOf);
    case 'OUTPUT ORDER':
    case 'O':
      return byPriority(matched).map(outputOf);
    default: {
      // COLLECT
      const outs = matched.map(outputOf);
      const agg = (table.aggregation ?? '').toUpperCase();
      if (!agg) return outs;
      if (agg === 'COUNT') return outs.length;
      if (!single) {
        ev.warnings?.push('aggregation needs a single output');
        return null;
      }
      const vals = outs.filter((v) => v !== null);
      if (agg === 'SUM') {
        if (!vals.every(isNumber)) return null;
        return builtins.get('sum')!.call([vals]);
      }
      if (agg === 'MIN' || agg === 'MAX') {
        if (vals.length === 0) return null;
        let best = vals[0];
        for (const v of vals) {
          const c = feelCompare(v, best);
          if (c === null) return null;
          if ((agg === 'MIN' && c < 0) || (agg === 'MAX' && c > 0)) best = v;
        }
        return best;
      }
      return null;
    }
  }
}
