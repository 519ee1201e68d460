/**
 * Mutation testing of a rule set or flow (`Workflow` scope): one fault at a time in a condition's text — a
 * comparison flipped (`<` ↔ `>=`, `<=` ↔ `>`, `=` / `==` ↔ `!=`), a number moved one step either way — or
 * a rule dropped (rules form, legacy); each mutant document is compiled by the engine (`buildWorkflowModel`:
 * `compileRuleSet`) and the plan's scenarios run against it. A mutant is killed when a scenario that passes on
 * the original no longer does. Strings in the condition are left alone.
 */
import { detectShape, type RuleSetCompileContext, type RuleSetShapeName } from '@arbiter/rule-engine';
import type { Mutant, MutationReport } from './mutation';
import { Prng } from './prng';
import { buildWorkflowModel, runWorkflowScenarios, type WorkflowRunnable } from './workflow';

const FLIP: Record<string, string> = {
  '>=': '<',
  '<=': '>',
  '>': '<=',
  '<': '>=',
  '!=': '=',
  '==': '!=',
  '=': '!=',
};

interface TextMutant {
  text: string;
  operator: Mutant['operator'];
  from: string;
  to: string;
}

/** Mutants of one condition text: each comparison flipped, each number moved by one step (strings skipped). */
export function conditionMutants(source: string): TextMutant[] {
  const out: TextMutant[] = [];
  const token = /"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|=>|>=|<=|!=|==|=|>|<|(?<![\w.])\d+(?:\.\d+)?(?![\w.])/g;
  for (const m of source.matchAll(token)) {
    const t = m[0];
    const at = m.index;
    if (t.startsWith('"') || t.startsWith("'") || t === '=>') continue;
    const splice = (to: string) => source.slice(0, at) + to + source.slice(at + t.length);
    if (FLIP[t]) {
      out.push({ text: splice(FLIP[t]), operator: 'flip-comparison', from: t, to: FLIP[t] });
      continue;
    }
    const decimals = /\.(\d+)$/.exec(t)?.[1].length ?? 0;
    const step = decimals ? Number(`1e-${decimals}`) : 1;
    for (const d of [-1, 1]) {
      const moved = (Number(t) + d * step).toFixed(decimals);
      if (Number(moved) < 0) continue;
      out.push({ text: splice(moved), operator: 'move-boundary', from: t, to: moved });
    }
  }
  return out;
}

interface DocumentMutant {
  mutant: Mutant;
  document: Record<string, unknown>;
}

const clone = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

/** Every mutant document of a rule set or flow. */
export function workflowMutants(
  document: Record<string, unknown>,
  shape?: RuleSetShapeName,
): DocumentMutant[] {
  const s = shape ?? detectShape(document);
  const out: DocumentMutant[] = [];
  const conditions: {
    id: string;
    get: (d: Record<string, unknown>) => Record<string, unknown>;
    field: string;
  }[] = [];
  if (s === 'rules' && Array.isArray(document.rules))
    (document.rules as Record<string, unknown>[]).forEach((r, i) => {
      if (typeof r.condition === 'string')
        conditions.push({
          id: String(r.name ?? r.id),
          get: (d) => (d.rules as Record<string, unknown>[])[i],
          field: 'condition',
        });
    });
  if (s === 'legacy' && Array.isArray(document.Rules))
    (document.Rules as Record<string, unknown>[]).forEach((r, i) => {
      if (typeof r.Expression === 'string')
        conditions.push({
          id: String(r.RuleName),
          get: (d) => (d.Rules as Record<string, unknown>[])[i],
          field: 'Expression',
        });
    });
  if (s === 'flow-graph' && Array.isArray(document.nodes))
    (document.nodes as { id: string; kind: string; config?: Record<string, unknown> }[]).forEach((n, i) => {
      const field = n.kind === 'javascript-condition' ? 'script' : 'expression';
      if (
        (n.kind === 'condition' || n.kind === 'javascript-condition') &&
        typeof n.config?.[field] === 'string'
      )
        conditions.push({
          id: n.id,
          get: (d) => (d.nodes as { config: Record<string, unknown> }[])[i].config,
          field,
        });
    });
  for (const c of conditions) {
    const source = c.get(document)[c.field] as string;
    for (const m of conditionMutants(source)) {
      const mutated = clone(document);
      c.get(mutated)[c.field] = m.text;
      out.push({
        document: mutated,
        mutant: {
          operator: m.operator,
          rowId: c.id,
          column: null,
          from: source,
          to: m.text,
          description: `${c.id}: '${source}' → '${m.text}'`,
        },
      });
    }
  }
  const list = s === 'rules' ? 'rules' : s === 'legacy' ? 'Rules' : null;
  if (list && Array.isArray(document[list]) && (document[list] as unknown[]).length > 1)
    (document[list] as Record<string, unknown>[]).forEach((r, i) => {
      const mutated = clone(document);
      (mutated[list] as unknown[]).splice(i, 1);
      const id = String(r.name ?? r.RuleName ?? r.id);
      out.push({
        document: mutated,
        mutant: {
          operator: 'drop-row',
          rowId: id,
          column: null,
          from: null,
          to: null,
          description: `${id} dropped`,
        },
      });
    });
  return out;
}

/** The mutation run of a workflow's scenarios: how many mutants of the document they notice. */
export async function workflowMutationRun(
  document: Record<string, unknown>,
  scenarios: WorkflowRunnable[],
  options: {
    context?: RuleSetCompileContext;
    shape?: RuleSetShapeName;
    maxMutants?: number;
    seed?: number;
    evaluationTimeoutMs?: number;
  } = {},
): Promise<MutationReport> {
  const started = performance.now();
  const original = await runWorkflowScenarios(
    await buildWorkflowModel(document, options.context, options.shape),
    scenarios,
    { evaluationTimeoutMs: options.evaluationTimeoutMs },
  );
  // only scenarios that pass on the original can notice a fault
  const passing = scenarios.filter((_, i) => original.results[i].matchesExpectation);
  let all = workflowMutants(document, options.shape);
  const max = options.maxMutants ?? 200;
  const sampled = all.length > max;
  if (sampled) all = new Prng(options.seed ?? 1).shuffle(all).slice(0, max);
  let killed = 0;
  let invalid = 0;
  const survivors: Mutant[] = [];
  for (const { document: mutated, mutant } of all) {
    let model;
    try {
      model = await buildWorkflowModel(mutated, options.context, options.shape);
    } catch {
      invalid++;
      continue;
    }
    const report = await runWorkflowScenarios(model, passing, {
      evaluationTimeoutMs: options.evaluationTimeoutMs,
    });
    if (report.results.some((r) => !r.matchesExpectation)) killed++;
    else if (survivors.length < 100) survivors.push(mutant);
  }
  const mutants = all.length - invalid;
  return {
    mutants,
    killed,
    survived: mutants - killed,
    invalid,
    score: mutants === 0 ? 100 : Math.round((killed / mutants) * 10000) / 100,
    survivors,
    sampled,
    duration: Math.round(performance.now() - started),
  };
}
