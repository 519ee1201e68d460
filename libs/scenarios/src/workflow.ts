/**
 * `Workflow` scope: scenarios of control-plane rule sets (rules form, legacy rules-engine JSON, code-based)
 * and flow graphs, run through the rule set engine the runtime uses (`compileRuleSet` of
 * @arbiter/rule-engine; there is no second evaluator).
 *
 * Generation (deterministic, no AI):
 * - Every condition (a rule's `condition` / `Expression`, a flow `condition` node's FEEL, a
 *   `javascript-condition` node's script, a `feel-expression` node) is read into a tree of and / or / not over
 *   atoms: `fact op literal`, `fact op otherFact` (input against input), `between`, `in`, a boolean fact.
 *   FEEL is read from its AST; what FEEL cannot parse (C#-style lambdas, JavaScript) from its comparisons.
 * - Per condition: an input that makes it true, one that makes it false, the unique-cause MC/DC pairs (one
 *   atom flipped, the others kept as they were), each boundary (below, on, above the literal; for an
 *   input-vs-input comparison the value is solved from the other input's value), and null and missing
 *   inputs (a flow condition that is not boolean takes its `on-error` edge). A flow node is reached by
 *   first solving the conditions on one path from `start` to it (`on-true` / `on-false` / `on-error`).
 * - Embedded decision tables (`decisionTables` of a rules-form document, `table` or `tableRef` of a flow
 *   node) contribute their own table scenarios; pairwise combinations of every fact's values (`CrossRule`).
 * - Duplicates are removed by the canonical hash of the input facts; the expectation is what the rule set
 *   as given does (`matchedRows`: rules matched / nodes that succeeded, `outputs`, first error code).
 *
 * Coverage: rules (conditions seen true and seen false), flow nodes run, flow edges taken.
 */
import { parseExpressionAst, type Node } from '@arbiter/feel';
import {
  compileRuleSet,
  detectShape,
  rulesOf,
  type CompiledRuleSet,
  type DecisionTableDefinition,
  type RuleSetCompileContext,
  type RuleSetEvaluation,
  type RuleSetShapeName,
} from '@arbiter/rule-engine';
import { canonicalJson, hashFacts, sameJson } from './canonical';
import { dedupBySimilarity } from './similarity';
import { generateTableScenarios } from './generate-table';
import { inputValueAt, orderedLiteral, type OrderedLiteral } from './literals';
import { pairwise } from './pairwise';
import { Prng } from './prng';
import type {
  ExpectedBehavior,
  GeneratedPlan,
  GeneratedScenario,
  ScenarioStatus,
  ScenarioType,
} from './types';

type Op = '=' | '!=' | '<' | '<=' | '>' | '>=';
type Path = string[];

interface Atom {
  path: Path;
  op: Op;
  /** `fact op literal` with an ordered literal */
  lit?: OrderedLiteral;
  /** `fact op value` with a string, boolean or null */
  value?: string | boolean | null;
  /** `fact op otherFact` (or `fact op otherFact * 3`: `scale`) */
  other?: Path;
  /** the other side is `otherFact <op> k` (or `k <op> otherFact`) */
  scale?: { op: '+' | '-' | '*' | '/'; k: number; kFirst: boolean };
}

/** `otherFact`, `otherFact * 3`, `2 + otherFact`: the other input and how the right side derives from it */
function otherSide(node: Node): { other: Path; scale?: Atom['scale'] } | null {
  const p = factPath(node);
  if (p) return { other: p };
  if (node.t !== 'arith' || node.op === '**') return null;
  const lp = factPath(node.left);
  const rp = factPath(node.right);
  const ll = orderedLiteral(node.left);
  const rl = orderedLiteral(node.right);
  if (lp && rl?.kind === 'number') return { other: lp, scale: { op: node.op, k: rl.n, kFirst: false } };
  if (rp && ll?.kind === 'number') return { other: rp, scale: { op: node.op, k: ll.n, kFirst: true } };
  return null;
}

function applyScale(v: unknown, scale: Atom['scale']): unknown {
  if (!scale || typeof v !== 'number') return v;
  const [a, b] = scale.kFirst ? [scale.k, v] : [v, scale.k];
  const r =
    scale.op === '+' ? a + b : scale.op === '-' ? a - b : scale.op === '*' ? a * b : b === 0 ? null : a / b;
  return typeof r === 'number' ? Number(r.toFixed(10)) : r;
}

type Tree =
  | { t: 'atom'; atom: Atom }
  | { t: 'and'; items: Tree[] }
  | { t: 'or'; items: Tree[] }
  | { t: 'not'; item: Tree }
  | { t: 'opaque' };

const FLIP: Record<Op, Op> = { '=': '=', '!=': '!=', '<': '>', '<=': '>=', '>': '<', '>=': '<=' };
const NEGATE: Record<Op, Op> = { '=': '!=', '!=': '=', '<': '>=', '<=': '>', '>': '<=', '>=': '<' };
/** offset (in steps) from the literal that makes `x op literal` true (false: the negated operator's) */
const TRUE_AT: Record<Op, number> = { '>=': 0, '>': 1, '<': -1, '<=': 0, '=': 0, '!=': 1 };
const ROOT_ALIASES = new Set(['input', 'input1', 'facts']);
const UNLISTED = 'zz-unlisted';

/* ------------------------------------------------------------------ reading conditions */

function pathOf(node: Node): Path | null {
  if (node.t === 'name') return [node.name];
  if (node.t === 'path') {
    const target = pathOf(node.target);
    return target ? [...target, node.name] : null;
  }
  return null;
}

function factPath(node: Node): Path | null {
  const p = pathOf(node);
  if (!p) return null;
  return p.length > 1 && ROOT_ALIASES.has(p[0]) ? p.slice(1) : p;
}

function atomOf(path: Path, op: Op, rhs: Node): Tree {
  const other = otherSide(rhs);
  if (other) return { t: 'atom', atom: { path, op, ...other } };
  const lit = orderedLiteral(rhs);
  if (lit) return { t: 'atom', atom: { path, op, lit } };
  if (rhs.t === 'str' || rhs.t === 'bool') return { t: 'atom', atom: { path, op, value: rhs.value } };
  if (rhs.t === 'null') return { t: 'atom', atom: { path, op, value: null } };
  return { t: 'opaque' };
}

function feelTree(node: Node, depth = 0): Tree {
  if (depth > 60) return { t: 'opaque' };
  switch (node.t) {
    case 'and':
    case 'or': {
      const items = [feelTree(node.left, depth + 1), feelTree(node.right, depth + 1)].flatMap((i) =>
        i.t === node.t ? i.items : [i],
      );
      return { t: node.t, items };
    }
    case 'cmp': {
      const left = factPath(node.left);
      if (left) return atomOf(left, node.op, node.right);
      const right = factPath(node.right);
      if (right) return atomOf(right, FLIP[node.op], node.left);
      return { t: 'opaque' };
    }
    case 'between': {
      const p = factPath(node.value);
      if (!p) return { t: 'opaque' };
      return { t: 'and', items: [atomOf(p, '>=', node.low), atomOf(p, '<=', node.high)] };
    }
    case 'in': {
      const p = factPath(node.value);
      if (!p) return { t: 'opaque' };
      const items: Tree[] = [];
      const add = (test: Node) => {
        if (test.t === 'list') test.items.forEach(add);
        else if (test.t === 'utest') items.push(atomOf(p, test.op, test.arg));
        else if (test.t === 'range') {
          const parts: Tree[] = [];
          if (test.start) parts.push(atomOf(p, test.startIncl ? '>=' : '>', test.start));
          if (test.end) parts.push(atomOf(p, test.endIncl ? '<=' : '<', test.end));
          items.push({ t: 'and', items: parts });
        } else items.push(atomOf(p, '=', test));
      };
      node.tests.forEach(add);
      return items.length === 1 ? items[0] : { t: 'or', items };
    }
    case 'call':
      if (node.fn.t === 'name' && node.fn.name === 'not' && node.args.length === 1)
        return { t: 'not', item: feelTree(node.args[0], depth + 1) };
      return { t: 'opaque' };
    case 'name':
    case 'path': {
      const p = factPath(node);
      return p ? { t: 'atom', atom: { path: p, op: '=', value: true } } : { t: 'opaque' };
    }
    default:
      return { t: 'opaque' };
  }
}

const SCRIPT_ATOM =
  /([A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*)\s*(===|!==|==|!=|>=|<=|>|<)\s*("(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|-?\d+(?:\.\d+)?|true|false|null|[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*)/g;

/** C#-style lambdas and JavaScript: the comparisons found in the text, joined as `&&` / `||` joins them. */
function scriptTree(source: string): Tree {
  const items: Tree[] = [];
  for (const m of source.matchAll(SCRIPT_ATOM)) {
    let path = m[1].split('.');
    if (path.length > 1 && ROOT_ALIASES.has(path[0])) path = path.slice(1);
    const op = (m[2].length === 3 ? m[2].slice(0, 2) : m[2]).replace('==', '=') as Op;
    const text = m[3];
    let atom: Atom;
    if (/^["']/.test(text)) atom = { path, op, value: text.slice(1, -1) };
    else if (text === 'true' || text === 'false') atom = { path, op, value: text === 'true' };
    else if (text === 'null') atom = { path, op, value: null };
    else if (/^-?\d/.test(text)) {
      const decimals = /\.(\d+)$/.exec(text)?.[1].length ?? 0;
      atom = {
        path,
        op,
        lit: { kind: 'number', n: Number(text), step: decimals ? Number(`1e-${decimals}`) : 1 },
      };
    } else {
      let other = text.split('.');
      if (other.length > 1 && ROOT_ALIASES.has(other[0])) other = other.slice(1);
      atom = { path, op, other };
    }
    items.push({ t: 'atom', atom });
  }
  if (items.length === 0) return { t: 'opaque' };
  if (items.length === 1) return items[0];
  return { t: /\|\||\bOrElse\b/.test(source) && !/&&|\bAndAlso\b/.test(source) ? 'or' : 'and', items };
}

/** A condition's tree: FEEL from its AST, anything FEEL does not parse from its comparisons. */
export function conditionTree(source: string): Tree {
  try {
    return feelTree(parseExpressionAst(source));
  } catch {
    return scriptTree(source);
  }
}

function atomsOf(tree: Tree, out: Atom[] = []): Atom[] {
  if (tree.t === 'atom') out.push(tree.atom);
  else if (tree.t === 'and' || tree.t === 'or') tree.items.forEach((i) => atomsOf(i, out));
  else if (tree.t === 'not') atomsOf(tree.item, out);
  return out;
}

/* ------------------------------------------------------------------ values */

type Assignment = Map<string, unknown>;
const keyOf = (p: Path) => p.join('.');
const MISSING = Symbol('missing');

function stepOfNumber(v: number): number {
  const d = /\.(\d+)$/.exec(String(v))?.[1].length ?? 0;
  return d ? Number(`1e-${d}`) : 1;
}

/** `base` moved by `offset` steps on its own line (number, ISO date, ISO date-time), or null. */
function shift(base: unknown, offset: number): unknown {
  if (typeof base === 'number') return Number((base + offset * stepOfNumber(base)).toFixed(10));
  if (typeof base === 'string') {
    if (/^\d{4}-\d{2}-\d{2}$/.test(base)) {
      const t = Date.parse(`${base}T00:00:00Z`) + offset * 86_400_000;
      return Number.isNaN(t) ? null : new Date(t).toISOString().slice(0, 10);
    }
    if (/^\d{4}-\d{2}-\d{2}T/.test(base)) {
      const t = Date.parse(base) + offset * 1000;
      return Number.isNaN(t) ? null : new Date(t).toISOString().replace('.000', '');
    }
    return offset === 0 ? base : `${base}${offset > 0 ? '~' : ''}`;
  }
  return null;
}

/** The value of `atom.path` that makes the atom `want`, given the other values already chosen. */
function solveAtom(atom: Atom, want: boolean, a: Assignment, baseline: Assignment): unknown {
  const op = want ? atom.op : NEGATE[atom.op];
  if (atom.lit) return inputValueAt(atom.lit, atom.lit.n + TRUE_AT[op] * atom.lit.step);
  if (atom.other) {
    const okey = keyOf(atom.other);
    let v = a.has(okey) ? a.get(okey) : baseline.get(okey);
    if (v === undefined || v === null || v === MISSING) {
      v = 100;
      a.set(okey, v);
    }
    if (typeof v === 'string' && !/^\d{4}-\d{2}-\d{2}/.test(v))
      return op === '=' ? v : op === '!=' ? `${v}~` : null;
    return shift(applyScale(v, atom.scale), TRUE_AT[op]);
  }
  const value = atom.value;
  if (op === '=') return value;
  // `!=`: a value of the same kind that differs
  if (typeof value === 'boolean') return !value;
  if (typeof value === 'string') return value === UNLISTED ? `${UNLISTED}~` : UNLISTED;
  const current = baseline.get(keyOf(atom.path));
  return current !== undefined && current !== null && current !== MISSING ? current : 0;
}

/** Chooses values so that `tree` evaluates to `want` (atoms already fixed by a caller stay). */
function solve(tree: Tree, want: boolean, a: Assignment, baseline: Assignment): void {
  switch (tree.t) {
    case 'atom':
      a.set(keyOf(tree.atom.path), solveAtom(tree.atom, want, a, baseline));
      return;
    case 'not':
      solve(tree.item, !want, a, baseline);
      return;
    case 'and':
      if (want) tree.items.forEach((i) => solve(i, true, a, baseline));
      else {
        tree.items.slice(1).forEach((i) => solve(i, true, a, baseline));
        solve(tree.items[0], false, a, baseline);
      }
      return;
    case 'or':
      if (!want) tree.items.forEach((i) => solve(i, false, a, baseline));
      else {
        tree.items.slice(1).forEach((i) => solve(i, false, a, baseline));
        solve(tree.items[0], true, a, baseline);
      }
      return;
    case 'opaque':
      return;
  }
}

/** every (atom, other atoms' wanted values) pair of unique-cause MC/DC for and / or chains */
function mcdcCases(tree: Tree): { flip: Tree; others: Tree[]; othersWant: boolean }[] {
  if (tree.t === 'and')
    return tree.items.map((flip) => ({
      flip,
      others: tree.items.filter((i) => i !== flip),
      othersWant: true,
    }));
  if (tree.t === 'or')
    return tree.items.map((flip) => ({
      flip,
      others: tree.items.filter((i) => i !== flip),
      othersWant: false,
    }));
  return [];
}

function setPath(target: Record<string, unknown>, path: Path, value: unknown): void {
  let o = target;
  for (let i = 0; i < path.length - 1; i++) {
    const next = o[path[i]];
    if (!next || typeof next !== 'object' || Array.isArray(next)) o[path[i]] = {};
    o = o[path[i]] as Record<string, unknown>;
  }
  o[path[path.length - 1]] = value;
}

function factsOf(a: Assignment, baseline: Assignment): Record<string, unknown> {
  const facts: Record<string, unknown> = {};
  const keys = new Set([...baseline.keys(), ...a.keys()]);
  for (const k of [...keys].sort()) {
    const v = a.has(k) ? a.get(k) : baseline.get(k);
    if (v === MISSING || v === undefined) continue;
    setPath(facts, k.split('.'), v);
  }
  return facts;
}

/* ------------------------------------------------------------------ the model */

interface ConditionItem {
  /** rule name / node id */
  id: string;
  source: string;
  tree: Tree;
  /** flow: condition outcomes on one path from start to this node */
  path: { node: ConditionItem | null; nodeId: string; want: boolean | 'error' }[];
  /** a branching node (flow condition) */
  branching: boolean;
}

export interface WorkflowEdge {
  from: string;
  kind: string;
  to: string;
}

export interface WorkflowModel {
  shape: RuleSetShapeName;
  compiled: CompiledRuleSet;
  /** rule names (rules, legacy, code-based) or node ids (flow graph) */
  items: string[];
  edges: WorkflowEdge[];
  conditions: ConditionItem[];
  tables: { name: string; definition: DecisionTableDefinition }[];
}

export function isWorkflowModel(x: unknown): x is WorkflowModel {
  return !!x && typeof x === 'object' && 'compiled' in x && 'conditions' in x && 'edges' in x;
}

interface FlowNodeDoc {
  id: string;
  kind: string;
  config?: Record<string, unknown>;
  edges?: { kind: string; target: string }[];
}

/** Compiles the document (the engine's compile, which validates as a save does) and reads its conditions. */
export async function buildWorkflowModel(
  document: Record<string, unknown>,
  context: RuleSetCompileContext = {},
  shape?: RuleSetShapeName,
): Promise<WorkflowModel> {
  const s = shape ?? detectShape(document);
  if (!s)
    throw new Error('the document is none of the rule set shapes (rules, legacy, code-based, flow-graph)');
  const compiled = await compileRuleSet(document, s, context);
  const conditions: ConditionItem[] = [];
  const edges: WorkflowEdge[] = [];
  const tables: { name: string; definition: DecisionTableDefinition }[] = [];
  if (Array.isArray(document.decisionTables))
    for (const t of document.decisionTables as DecisionTableDefinition[])
      tables.push({ name: String(t.name), definition: t });
  if (s === 'flow-graph') {
    const nodes = document.nodes as FlowNodeDoc[];
    const byId = new Map(nodes.map((n) => [n.id, n]));
    const items = new Map<string, ConditionItem>();
    for (const n of nodes) {
      for (const e of n.edges ?? []) edges.push({ from: n.id, kind: e.kind, to: e.target });
      const cfg = n.config ?? {};
      if (n.kind === 'condition' || n.kind === 'feel-expression' || n.kind === 'javascript-condition') {
        const source = String(n.kind === 'javascript-condition' ? cfg.script : (cfg.expression ?? ''));
        items.set(n.id, {
          id: n.id,
          source,
          tree: conditionTree(source),
          path: [],
          branching: n.kind !== 'feel-expression',
        });
      }
      if (n.kind === 'decision-table') {
        if (cfg.table) tables.push({ name: n.id, definition: cfg.table as DecisionTableDefinition });
        else if (cfg.tableRef && context.resolveDecisionTable)
          tables.push({
            name: n.id,
            definition: await context.resolveDecisionTable(cfg.tableRef as { id?: string; name?: string }),
          });
      }
    }
    // one path from start to every node (breadth first), with the outcome each condition on it must give
    const start = typeof document.start === 'string' ? document.start : nodes[0]?.id;
    const parent = new Map<string, { from: string; kind: string }>();
    const seen = new Set([start]);
    const queue = [start];
    while (queue.length) {
      const id = queue.shift()!;
      for (const e of byId.get(id)?.edges ?? []) {
        if (seen.has(e.target)) continue;
        seen.add(e.target);
        parent.set(e.target, { from: id, kind: e.kind });
        queue.push(e.target);
      }
    }
    for (const item of items.values()) {
      const path: ConditionItem['path'] = [];
      let at = item.id;
      while (parent.has(at)) {
        const p = parent.get(at)!;
        const want =
          p.kind === 'on-true'
            ? true
            : p.kind === 'on-false'
              ? false
              : p.kind === 'on-error'
                ? 'error'
                : null;
        if (want !== null) path.unshift({ node: items.get(p.from) ?? null, nodeId: p.from, want });
        at = p.from;
      }
      item.path = path;
      conditions.push(item);
    }
  } else {
    for (const r of rulesOf(document, s)) {
      if (r.id.startsWith('decisionTable:')) continue;
      const source =
        typeof r.condition === 'string'
          ? r.condition
          : typeof r.Expression === 'string'
            ? r.Expression
            : null;
      if (source)
        conditions.push({ id: r.name, source, tree: conditionTree(source), path: [], branching: true });
    }
  }
  return { shape: s, compiled, items: [...compiled.ruleNames], edges, conditions, tables };
}

/* ------------------------------------------------------------------ generation */

export interface WorkflowGenerateOptions {
  seedRuleCode: string;
  seed?: number;
  maxScenarios?: number;
  /** values per fact in the pairwise combinations (default 4) */
  pairwiseValuesPerFact?: number;
  /** cosine similarity at or above which a scenario counts as a near duplicate (default: hash only) */
  similarityThreshold?: number;
  /** milliseconds each evaluation may take (default 2000) */
  evaluationTimeoutMs?: number;
}

interface Candidate {
  name: string;
  type: ScenarioType;
  scope: 'Workflow' | 'CrossRule';
  facts: Record<string, unknown>;
  target: string | null;
  probe: string;
}

/** lets the event loop run (health probes, other requests) between slices of evaluations */
const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve));
const SLICE = 100;

async function evaluate(model: WorkflowModel, facts: Record<string, unknown>, timeoutMs: number) {
  const started = performance.now();
  let evaluation: RuleSetEvaluation | null = null;
  let thrown: string | null = null;
  try {
    evaluation = await model.compiled.evaluate(JSON.parse(JSON.stringify(facts)) as Record<string, unknown>, {
      sideEffects: false,
      trace: true,
      deadline: Date.now() + timeoutMs,
    });
  } catch (e) {
    thrown = e instanceof Error ? e.message : String(e);
  }
  return { evaluation, thrown, duration: performance.now() - started };
}

function expectationOf(
  evaluation: RuleSetEvaluation | null,
  thrown: string | null,
  target: string | null,
  description: string,
): ExpectedBehavior {
  if (!evaluation)
    return {
      matchedRows: [],
      outputs: null,
      errorCode: 'UNEXPECTED',
      targetRowId: target,
      description: `${description} (${thrown})`,
    };
  return {
    matchedRows: [...evaluation.rulesMatched],
    outputs: JSON.parse(canonicalJson(evaluation.outputs)) as Record<string, unknown>,
    errorCode: evaluation.errors[0]?.code ?? null,
    targetRowId: target,
    description,
  };
}

/**
 * What the rule set does with these facts, as an expectation: how a scenario made outside the generator
 * (an AI proposal) gets its expectation, exactly as generated ones get theirs.
 */
export async function workflowExpectation(
  model: WorkflowModel,
  facts: Record<string, unknown>,
  description: string,
  timeoutMs = 2000,
): Promise<ExpectedBehavior> {
  const { evaluation, thrown } = await evaluate(model, facts, timeoutMs);
  return expectationOf(evaluation, thrown, null, description);
}

/** The scenario plan of a rule set or flow (scope `Workflow`, pairwise ones `CrossRule`). */
export async function generateWorkflowScenarios(
  input: WorkflowModel | Record<string, unknown>,
  options: WorkflowGenerateOptions,
  context: RuleSetCompileContext = {},
): Promise<GeneratedPlan & { nearDuplicatesRemoved: number }> {
  const started = performance.now();
  const model = isWorkflowModel(input) ? input : await buildWorkflowModel(input, context);
  const seed = options.seed ?? 1;
  const prng = new Prng(seed);
  const timeoutMs = options.evaluationTimeoutMs ?? 2000;

  // every fact a condition reads, with its probes; the baseline is each fact's first `on` value
  const probes = new Map<string, { value: unknown; kind: string }[]>();
  const addProbe = (k: string, value: unknown, kind: string) => {
    if (value === null && kind !== 'null') return;
    const list = probes.get(k) ?? [];
    if (!list.some((p) => sameJson(p.value, value))) list.push({ value, kind });
    probes.set(k, list);
  };
  for (const c of model.conditions)
    for (const atom of atomsOf(c.tree)) {
      const k = keyOf(atom.path);
      if (atom.lit)
        for (const [kind, d] of [
          ['on', 0],
          ['below', -1],
          ['above', 1],
        ] as const)
          addProbe(k, inputValueAt(atom.lit, atom.lit.n + d * atom.lit.step), kind);
      else if (atom.other) {
        if (!probes.has(k)) probes.set(k, []);
        if (!probes.has(keyOf(atom.other))) probes.set(keyOf(atom.other), []);
      } else if (typeof atom.value === 'boolean') {
        addProbe(k, atom.value, 'listed');
        addProbe(k, !atom.value, 'boolean');
      } else if (typeof atom.value === 'string') {
        addProbe(k, atom.value, 'listed');
        addProbe(k, UNLISTED, 'unlisted');
      }
    }
  const baseline: Assignment = new Map();
  for (const [k, list] of probes) baseline.set(k, list.length ? list[0].value : 100);

  const candidates: Candidate[] = [];
  const push = (c: Omit<Candidate, 'facts'>, a: Assignment) =>
    candidates.push({ ...c, facts: factsOf(a, baseline) });
  const reach = (c: ConditionItem): Assignment => {
    const a: Assignment = new Map();
    for (const step of c.path) {
      if (!step.node) continue;
      if (step.want === 'error') {
        const first = atomsOf(step.node.tree)[0];
        if (first) a.set(keyOf(first.path), null);
      } else solve(step.node.tree, step.want, a, baseline);
    }
    return a;
  };

  push({ name: 'baseline', type: 'RowMatch', scope: 'Workflow', target: null, probe: 'baseline' }, new Map());
  for (const c of model.conditions) {
    const onPath = reach(c);
    for (const want of [true, false]) {
      const a = new Map(onPath);
      solve(c.tree, want, a, baseline);
      push(
        {
          name: `${c.id}: ${c.source.slice(0, 80)} is ${want}`,
          type: want ? 'RowMatch' : 'Boundary',
          scope: 'Workflow',
          target: c.id,
          probe: String(want),
        },
        a,
      );
    }
    for (const m of mcdcCases(c.tree)) {
      for (const flipWant of [true, false]) {
        const a = new Map(onPath);
        m.others.forEach((o) => solve(o, m.othersWant, a, baseline));
        solve(m.flip, flipWant, a, baseline);
        push(
          {
            name: `${c.id}: MC/DC ${describe(m.flip)} ${flipWant}`,
            type: 'McDc',
            scope: 'Workflow',
            target: c.id,
            probe: 'mcdc',
          },
          a,
        );
      }
    }
    // boundaries: every atom at below / on / above its literal (or the other input's value), the rest true
    const atoms = atomsOf(c.tree);
    for (const atom of atoms) {
      for (const d of [-1, 0, 1]) {
        const a = new Map(onPath);
        if (c.tree.t === 'and') c.tree.items.forEach((i) => solve(i, true, a, baseline));
        const k = keyOf(atom.path);
        let value: unknown;
        if (atom.lit) value = inputValueAt(atom.lit, atom.lit.n + d * atom.lit.step);
        else if (atom.other) {
          const okey = keyOf(atom.other);
          const v = a.get(okey) ?? baseline.get(okey) ?? 100;
          a.set(okey, v);
          value = shift(applyScale(v, atom.scale), d);
        } else continue;
        if (value === null) continue;
        a.set(k, value);
        push(
          {
            name: `${c.id}: ${k} ${d < 0 ? 'below' : d > 0 ? 'above' : 'on'} ${describe({ t: 'atom', atom })}`,
            type: 'Boundary',
            scope: 'Workflow',
            target: c.id,
            probe: d < 0 ? 'below' : d > 0 ? 'above' : 'on',
          },
          a,
        );
      }
    }
    // null and missing inputs: a flow condition that is not boolean takes its on-error edge
    const seenKeys = new Set<string>();
    for (const atom of atoms) {
      const k = keyOf(atom.path);
      if (seenKeys.has(k)) continue;
      seenKeys.add(k);
      const a = new Map(onPath);
      solve(c.tree, true, a, baseline);
      push(
        { name: `${c.id}: ${k} is null`, type: 'NullInput', scope: 'Workflow', target: c.id, probe: 'null' },
        new Map([...a, [k, null]]),
      );
      push(
        {
          name: `${c.id}: ${k} is missing`,
          type: 'MissingInput',
          scope: 'Workflow',
          target: c.id,
          probe: 'missing',
        },
        new Map([...a, [k, MISSING]]),
      );
    }
  }
  // embedded and referenced decision tables: their own scenarios, over the baseline
  for (const t of model.tables) {
    try {
      const plan = generateTableScenarios(t.definition, { seedRuleCode: t.name, seed, maxScenarios: 500 });
      for (const s of plan.scenarios) {
        const a: Assignment = new Map();
        for (const [k, v] of Object.entries(s.inputFacts)) a.set(k, v);
        push(
          {
            name: `table ${t.name}: ${s.scenarioName}`,
            type: s.type,
            scope: 'Workflow',
            target: t.name,
            probe: s.origin.probe ?? 'table',
          },
          a,
        );
      }
    } catch {
      // a table the engine does not compile fails the rule set's compile already
    }
  }
  // pairwise across facts (CrossRule)
  const facts = [...probes.entries()].filter(([, list]) => list.length > 0);
  if (facts.length > 1) {
    const per = options.pairwiseValuesPerFact ?? 4;
    const domains = facts.map(([, list]) => list.slice(0, per));
    for (const combo of pairwise(
      domains.map((d) => d.length),
      prng,
      2000,
    )) {
      const a: Assignment = new Map();
      combo.forEach((v, i) => a.set(facts[i][0], domains[i][v].value));
      push(
        {
          name: `pairwise ${combo.join('-')}`,
          type: 'Pairwise',
          scope: 'CrossRule',
          target: null,
          probe: 'pairwise',
        },
        a,
      );
    }
  }

  // dedup by hash, then (when asked) by similarity; expectation from the engine
  const byHash = new Map<string, Candidate>();
  for (const c of candidates) {
    const h = hashFacts(c.facts);
    if (!byHash.has(h)) byHash.set(h, c);
  }
  let unique = [...byHash.entries()];
  let nearDuplicatesRemoved = 0;
  if (options.similarityThreshold !== undefined) {
    // only combinations are thinned: boundary and MC/DC scenarios are near each other on purpose
    const pairs = unique.filter(([, c]) => c.type === 'Pairwise');
    const kept = new Set(
      dedupBySimilarity(
        pairs.map(([, c]) => c.facts),
        options.similarityThreshold,
      ).map((i) => pairs[i]),
    );
    nearDuplicatesRemoved = pairs.length - kept.size;
    unique = unique.filter((u) => u[1].type !== 'Pairwise' || kept.has(u));
  }
  const max = options.maxScenarios ?? 5000;
  const scenarios: GeneratedScenario[] = [];
  let n = 0;
  for (const [hash, c] of unique.slice(0, max)) {
    if (++n % SLICE === 0) await yieldToLoop();
    const { evaluation, thrown } = await evaluate(model, c.facts, timeoutMs);
    scenarios.push({
      scenarioName: c.name,
      type: c.type,
      scope: c.scope,
      inputFacts: c.facts,
      expectedBehavior: expectationOf(evaluation, thrown, c.target, c.name),
      hash,
      origin: { rowId: c.target ?? undefined, probe: c.probe },
    });
  }
  return {
    seedRuleCode: options.seedRuleCode,
    scope: 'Workflow',
    seed,
    scenarios,
    aiModelUsed: null,
    generationDuration: Math.round(performance.now() - started),
    candidates: candidates.length,
    duplicatesRemoved: candidates.length - scenarios.length,
    nearDuplicatesRemoved,
  };
}

function describe(tree: Tree): string {
  if (tree.t !== 'atom') return tree.t;
  const a = tree.atom;
  const rhs = a.other
    ? keyOf(a.other)
    : a.lit
      ? String(inputValueAt(a.lit, a.lit.n))
      : JSON.stringify(a.value);
  return `${keyOf(a.path)} ${a.op} ${rhs}`;
}

/* ------------------------------------------------------------------ running */

export interface WorkflowRunnable {
  id?: string;
  scenarioName?: string;
  inputFacts: Record<string, unknown>;
  expectedBehavior: ExpectedBehavior;
}

export interface WorkflowScenarioResult {
  id?: string;
  status: ScenarioStatus;
  isSuccess: boolean;
  matchesExpectation: boolean;
  outputFacts: Record<string, unknown> | null;
  matchedRows: string[];
  errors: string[];
  duration: number;
  analysis: { rowId: string; column: string | null; message: string }[];
}

export interface WorkflowCoverage {
  /** the figure a gate compares: rules seen both ways (rule sets); the lowest of that, nodes and edges (flows) */
  percent: number;
  /** rules (or flow conditions): condition seen true and seen false */
  rules: {
    total: number;
    hit: number;
    bothSides: number;
    percent: number;
    unhit: string[];
    oneSided: string[];
  };
  /** flow graphs: nodes that ran, edges taken */
  nodes: { total: number; hit: number; percent: number; unhit: string[] };
  edges: { total: number; hit: number; percent: number; unhit: string[] };
}

export interface WorkflowRunReport {
  results: WorkflowScenarioResult[];
  coverage: WorkflowCoverage;
  passed: number;
  failed: number;
  errored: number;
  duration: number;
}

const pct = (part: number, total: number) => (total === 0 ? 100 : Math.round((part / total) * 10000) / 100);

function edgeTaken(
  e: WorkflowEdge,
  ran: Map<string, { matched: boolean; failed: boolean; skipped: boolean }>,
): boolean {
  const from = ran.get(e.from);
  if (!from || from.skipped || !ran.has(e.to)) return false;
  switch (e.kind) {
    case 'on-true':
      return from.matched && !from.failed;
    case 'on-false':
      return !from.matched && !from.failed;
    case 'on-error':
      return from.failed;
    case 'next':
      return !from.failed;
    default:
      return true;
  }
}

/** Runs scenarios through the compiled rule set and measures rule, node and edge coverage. */
export async function runWorkflowScenarios(
  model: WorkflowModel,
  scenarios: WorkflowRunnable[],
  options: { evaluationTimeoutMs?: number } = {},
): Promise<WorkflowRunReport> {
  const started = performance.now();
  const timeoutMs = options.evaluationTimeoutMs ?? 2000;
  const flow = model.shape === 'flow-graph';
  const truthy = new Set<string>();
  const falsy = new Set<string>();
  const nodesRun = new Set<string>();
  const edgesTaken = new Set<number>();
  const results: WorkflowScenarioResult[] = [];
  let passed = 0;
  let failed = 0;
  let errored = 0;
  let n = 0;
  for (const s of scenarios) {
    if (++n % SLICE === 0) await yieldToLoop();
    const { evaluation, thrown, duration } = await evaluate(model, s.inputFacts, timeoutMs);
    if (!evaluation) {
      errored++;
      results.push({
        id: s.id,
        status: 'Error',
        isSuccess: false,
        matchesExpectation: false,
        outputFacts: null,
        matchedRows: [],
        errors: [thrown ?? 'failed'],
        duration,
        analysis: [],
      });
      continue;
    }
    const ran = new Map<string, { matched: boolean; failed: boolean; skipped: boolean }>();
    const failedRules = new Set(evaluation.errors.map((e) => e.ruleName));
    for (const t of evaluation.traces) {
      const failedNode =
        !t.matched &&
        !t.skipped &&
        (failedRules.has(t.ruleName) ||
          (flow && t.failReason !== null && t.failReason !== 'condition was false'));
      ran.set(t.ruleName, { matched: t.matched, failed: failedNode, skipped: !!t.skipped });
      if (!t.skipped) nodesRun.add(t.ruleName);
      if (failedNode) continue;
      if (t.matched) truthy.add(t.ruleName);
      else if (!t.skipped) falsy.add(t.ruleName);
    }
    if (flow) model.edges.forEach((e, i) => edgeTaken(e, ran) && edgesTaken.add(i));
    const actual = expectationOf(evaluation, null, null, '');
    const expected = s.expectedBehavior;
    const matches =
      (expected.errorCode ?? null) === (actual.errorCode ?? null) &&
      sameJson(actual.matchedRows, expected.matchedRows) &&
      sameJson(actual.outputs, expected.outputs);
    const analysis: WorkflowScenarioResult['analysis'] = [];
    if (!matches) {
      for (const r of expected.matchedRows)
        if (!actual.matchedRows.includes(r))
          analysis.push({
            rowId: r,
            column: null,
            message: `${r} was expected to ${flow ? 'succeed' : 'match'} and did not`,
          });
      for (const r of actual.matchedRows)
        if (!expected.matchedRows.includes(r))
          analysis.push({
            rowId: r,
            column: null,
            message: `${r} ${flow ? 'succeeded' : 'matched'} although it was not expected to`,
          });
      if (!analysis.length)
        analysis.push({
          rowId: expected.targetRowId ?? '',
          column: null,
          message:
            (expected.errorCode ?? null) !== (actual.errorCode ?? null)
              ? `error ${actual.errorCode ?? 'none'} instead of ${expected.errorCode ?? 'none'}`
              : 'the output facts differ',
        });
    }
    const isSuccess =
      !evaluation.errors.length || (expected.errorCode ?? null) === (actual.errorCode ?? null);
    const status: ScenarioStatus = matches ? 'Passed' : 'Failed';
    if (matches) passed++;
    else failed++;
    results.push({
      id: s.id,
      status,
      isSuccess,
      matchesExpectation: matches,
      outputFacts: actual.outputs,
      matchedRows: actual.matchedRows,
      errors: evaluation.errors.map((e) => `${e.ruleName ? `${e.ruleName}: ` : ''}${e.code}: ${e.message}`),
      duration,
      analysis,
    });
  }
  const ruleIds = flow ? model.conditions.filter((c) => c.branching).map((c) => c.id) : model.items;
  const hit = ruleIds.filter((r) => truthy.has(r));
  const both = ruleIds.filter((r) => truthy.has(r) && falsy.has(r));
  const rulesPercent = pct(both.length, ruleIds.length);
  const nodesPercent = pct(nodesRun.size, model.items.length);
  const edgesPercent = pct(edgesTaken.size, model.edges.length);
  return {
    results,
    coverage: {
      percent: flow ? Math.min(rulesPercent, nodesPercent, edgesPercent) : rulesPercent,
      rules: {
        total: ruleIds.length,
        hit: hit.length,
        bothSides: both.length,
        percent: pct(both.length, ruleIds.length),
        unhit: ruleIds.filter((r) => !truthy.has(r)),
        oneSided: ruleIds.filter((r) => truthy.has(r) !== falsy.has(r)),
      },
      nodes: flow
        ? {
            total: model.items.length,
            hit: nodesRun.size,
            percent: pct(nodesRun.size, model.items.length),
            unhit: model.items.filter((n) => !nodesRun.has(n)),
          }
        : { total: 0, hit: 0, percent: 100, unhit: [] },
      edges: {
        total: model.edges.length,
        hit: edgesTaken.size,
        percent: pct(edgesTaken.size, model.edges.length),
        unhit: model.edges.filter((_, i) => !edgesTaken.has(i)).map((e) => `${e.from} -${e.kind}-> ${e.to}`),
      },
    },
    passed,
    failed,
    errored,
    duration: Math.round(performance.now() - started),
  };
}
