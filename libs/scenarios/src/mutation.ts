/**
 * Mutation testing of a decision table: small faults a person could make are injected one at a time —
 * a comparison flipped (`<` ↔ `>=`, `<=` ↔ `>`, `=` ↔ `!=`, a range end's bracket turned), a boundary moved
 * by one step either way, a row dropped — each mutant is compiled by the engine and the scenarios run
 * against it; a mutant is killed when some scenario that passes on the table no longer does. The score
 * (killed / mutants) is the honest measure of whether the scenarios test anything.
 */
import { compileUnaryTests, type Node } from '@arbiter/feel';
import {
  EvaluationError,
  compileDecisionTable,
  shapeAccepts,
  shapeOfAst,
  type CompiledDecisionTable,
  type DecisionTableDefinition,
} from '@arbiter/rule-engine';
import { feelLiteralAt, orderedLiteral } from './literals';
import { Prng } from './prng';
import { RunnableScenario, outcomeMatches } from './run-table';
import { canonicalJson } from './canonical';
import { buildTableModel, cellAccepts, coerceFor } from './table-model';

export type MutationOperator = 'flip-comparison' | 'move-boundary' | 'flip-inclusion' | 'drop-row';

export interface Mutant {
  operator: MutationOperator;
  rowId: string;
  column: string | null;
  /** cell text before and after (null for a dropped row) */
  from: string | null;
  to: string | null;
  description: string;
}

export interface MutationReport {
  mutants: number;
  killed: number;
  survived: number;
  /** mutants whose table no longer compiles (not counted) */
  invalid: number;
  /** killed / mutants, 0..100 (100 when there is no mutant) */
  score: number;
  /** mutants that survived (first 100) */
  survivors: Mutant[];
  /** more mutants existed than maxMutants: a seeded sample was run */
  sampled: boolean;
  /** milliseconds */
  duration: number;
}

const FLIP: Record<string, string> = { '<': '>=', '>=': '<', '<=': '>', '>': '<=', '=': '!=', '!=': '=' };

/** FEEL source of a simple unary test node, or null when it is not one the printer knows. */
function print(node: Node): string | null {
  switch (node.t) {
    case 'str':
      return JSON.stringify(node.value);
    case 'bool':
      return String(node.value);
    case 'null':
      return 'null';
    case 'utest': {
      const arg = print(node.arg);
      return arg === null ? null : `${node.op} ${arg}`;
    }
    case 'range': {
      if (!node.start || !node.end) return null;
      const a = print(node.start);
      const b = print(node.end);
      return a === null || b === null
        ? null
        : `${node.startIncl ? '[' : '('}${a}..${b}${node.endIncl ? ']' : ')'}`;
    }
    case 'unot': {
      const parts = node.tests.map(print);
      return parts.some((p) => p === null) ? null : `not(${parts.join(', ')})`;
    }
    case 'ulist': {
      const parts = node.tests.map(print);
      return parts.some((p) => p === null) ? null : parts.join(', ');
    }
    default: {
      const lit = orderedLiteral(node);
      return lit ? feelLiteralAt(lit, lit.n) : null;
    }
  }
}

/** every variant of a unary test's AST with one fault (as FEEL text) */
function cellMutations(ast: Node): { operator: MutationOperator; text: string }[] {
  if (ast.t !== 'ulist' && ast.t !== 'unot') return [];
  const out: { operator: MutationOperator; text: string }[] = [];
  const tests = ast.tests;
  const wrap = (replaced: Node[]) => print({ ...ast, tests: replaced } as Node);
  const moved = (node: Node, d: number): Node | null => {
    const lit = orderedLiteral(node);
    if (!lit) return null;
    const text = feelLiteralAt(lit, lit.n + d * lit.step);
    if (text === null) return null;
    try {
      const parsed = compileUnaryTests(text).ast;
      return parsed.t === 'ulist' && parsed.tests.length === 1 ? parsed.tests[0] : null;
    } catch {
      return null;
    }
  };
  tests.forEach((test, i) => {
    const replace = (node: Node | null, operator: MutationOperator) => {
      if (!node) return;
      const copy = tests.slice();
      copy[i] = node;
      const text = wrap(copy);
      if (text !== null) out.push({ operator, text });
    };
    if (test.t === 'utest') {
      replace({ ...test, op: FLIP[test.op] as typeof test.op }, 'flip-comparison');
      for (const d of [-1, 1]) {
        const arg = moved(test.arg, d);
        if (arg) replace({ ...test, arg }, 'move-boundary');
      }
    } else if (test.t === 'range' && test.start && test.end) {
      replace({ ...test, startIncl: !test.startIncl }, 'flip-inclusion');
      replace({ ...test, endIncl: !test.endIncl }, 'flip-inclusion');
      for (const d of [-1, 1]) {
        const start = moved(test.start, d);
        if (start) replace({ ...test, start }, 'move-boundary');
        const end = moved(test.end, d);
        if (end) replace({ ...test, end }, 'move-boundary');
      }
    } else if (orderedLiteral(test)) {
      replace({ t: 'utest', op: '!=', arg: test, pos: test.pos }, 'flip-comparison');
      for (const d of [-1, 1]) replace(moved(test, d), 'move-boundary');
    }
  });
  return out;
}

/** All mutants of a table definition (the definition's own JSON form). */
export function tableMutants(definition: DecisionTableDefinition): Mutant[] {
  const mutants: Mutant[] = [];
  const names = definition.inputColumns.map((c) => c.name);
  definition.rows.forEach((row, r) => {
    const rowId = row.id ?? `row-${r + 1}`;
    mutants.push({
      operator: 'drop-row',
      rowId,
      column: null,
      from: null,
      to: null,
      description: `drop ${rowId}`,
    });
    for (const column of names) {
      const text = (row.inputConditions[column] ?? '').trim();
      if (!text || text === '-') continue;
      let ast: Node;
      try {
        ast = compileUnaryTests(text, { scope: names }).ast;
      } catch {
        continue;
      }
      for (const m of cellMutations(ast))
        if (m.text !== text)
          mutants.push({
            operator: m.operator,
            rowId,
            column,
            from: text,
            to: m.text,
            description: `${rowId} ${column}: '${text}' → '${m.text}'`,
          });
    }
  });
  return mutants;
}

function apply(definition: DecisionTableDefinition, mutant: Mutant): DecisionTableDefinition {
  const rows = definition.rows.map((row, r) => ({ ...row, id: row.id ?? `row-${r + 1}` }));
  if (mutant.operator === 'drop-row')
    return { ...definition, rows: rows.filter((row) => row.id !== mutant.rowId) };
  return {
    ...definition,
    rows: rows.map((row) =>
      row.id === mutant.rowId
        ? {
            ...row,
            inputConditions: { ...row.inputConditions, [mutant.column as string]: mutant.to as string },
          }
        : row,
    ),
  };
}

function outcomeOf(table: CompiledDecisionTable, facts: Record<string, unknown>) {
  try {
    return { result: table.evaluate(facts), errorCode: null, message: null };
  } catch (e) {
    return { result: null, errorCode: e instanceof EvaluationError ? e.code : 'UNEXPECTED', message: null };
  }
}

export interface MutationOptions {
  seed?: number;
  /** run at most this many mutants (a seeded sample); default: all */
  maxMutants?: number;
  now?: () => number;
}

/**
 * Runs every mutant (or a seeded sample) against the scenarios. A mutant changes one row, so it can only
 * change the outcome of a scenario whose verdict on that row changes: those scenarios are found first
 * (the mutated condition tested on each distinct value of its column, the row's other conditions on the
 * few scenarios left), then the mutant table — restricted to the mutated row and the rows that match
 * those scenarios, which decide them exactly as the whole table would — is compiled by the engine and
 * the scenarios run on it. A scenario kills the mutant when it passes on the original table and not on
 * the mutant. A mutant no scenario can reach survives without being compiled.
 */
export function mutationRun(
  definition: DecisionTableDefinition,
  scenarios: RunnableScenario[],
  options: MutationOptions = {},
): MutationReport {
  const now = options.now ?? (() => performance.now());
  const started = now();
  const all = tableMutants(definition);
  const max = options.maxMutants ?? Infinity;
  const sampled = all.length > max;
  const mutants = sampled ? new Prng(options.seed ?? 1).shuffle(all).slice(0, max) : all;

  const model = buildTableModel(definition);
  const { columns, rowIds } = model;
  const rowIndex = new Map(rowIds.map((id, i) => [id, i]));
  const rows = definition.rows.map((row, r) => ({ ...row, id: rowIds[r] }));
  // every row each scenario matches (the engine, multi-hit), and whether it passes on the original
  const everyMatch = compileDecisionTable({ ...definition, rows, hitPolicy: 'RuleOrder' });
  const matchedBy = new Map<number, number[]>(); // row → scenarios
  const matches: number[][] = scenarios.map((s, i) => {
    let ids: string[] = [];
    try {
      ids = everyMatch.evaluate(s.inputFacts).matchedRows;
    } catch {
      ids = [];
    }
    const list = ids.map((id) => rowIndex.get(id) as number);
    for (const r of list) {
      const l = matchedBy.get(r) ?? [];
      l.push(i);
      matchedBy.set(r, l);
    }
    return list;
  });
  const passes = scenarios.map((s) =>
    outcomeMatches(outcomeOf(model.compiled, s.inputFacts), s.expectedBehavior),
  );
  // per column: distinct values (coerced) and the scenarios holding each
  const byValue = columns.map((col) => {
    const m = new Map<string, { value: unknown; scenarios: number[] }>();
    scenarios.forEach((s, i) => {
      const key = canonicalJson(s.inputFacts[col.name]);
      let e = m.get(key);
      if (!e) m.set(key, (e = { value: coerceFor(col, s.inputFacts[col.name]), scenarios: [] }));
      e.scenarios.push(i);
    });
    return [...m.values()];
  });
  const names = columns.map((c) => c.name);
  const verdicts = new Map<string, (value: unknown) => boolean | null>();
  const verdictOf = (text: string) => {
    const known = verdicts.get(text);
    if (known) return known;
    const test = compileUnaryTests(text, { scope: names });
    const shape = shapeOfAst(test.ast);
    const verdict = (value: unknown): boolean | null => {
      if (value === undefined) return null;
      const fast = shape.kind === 'opaque' ? null : shapeAccepts(shape, value);
      return fast ?? test.test(value, null);
    };
    verdicts.set(text, verdict);
    return verdict;
  };

  let killed = 0;
  let invalid = 0;
  const survivors: Mutant[] = [];
  for (const mutant of mutants) {
    const r = rowIndex.get(mutant.rowId) as number;
    const c = mutant.column === null ? -1 : names.indexOf(mutant.column);
    // the scenarios whose verdict on the mutated row changes
    let reached: number[];
    if (mutant.operator === 'drop-row') reached = matchedBy.get(r) ?? [];
    else {
      let after: (v: unknown) => boolean | null;
      try {
        after = verdictOf(mutant.to as string);
      } catch {
        invalid++;
        continue;
      }
      const cell = model.cells[r][c];
      reached = [];
      if (cell.usesNames) {
        // the condition reads other columns: test it on each scenario with the whole input
        const mutated = compileUnaryTests(mutant.to as string, { scope: names });
        scenarios.forEach((s, i) => {
          const ctx: Record<string, unknown> = {};
          for (const col of columns) ctx[col.name] = coerceFor(col, s.inputFacts[col.name]) ?? null;
          const before = cellAccepts(model, r, c, s.inputFacts) === true;
          if (before !== (mutated.test(ctx[names[c]], ctx) === true)) reached.push(i);
        });
      } else {
        const before = verdictOf(cell.text);
        for (const entry of byValue[c])
          if ((before(entry.value) === true) !== (after(entry.value) === true))
            reached.push(...entry.scenarios);
      }
      reached = reached.filter((i) =>
        columns.every((_, k) => k === c || cellAccepts(model, r, k, scenarios[i].inputFacts) === true),
      );
    }
    reached = reached.filter((i) => passes[i]);
    if (reached.length === 0) {
      if (survivors.length < 100) survivors.push(mutant);
      continue;
    }
    const keep = new Set<number>([r]);
    for (const i of reached) for (const k of matches[i]) keep.add(k);
    const mutated = apply({ ...definition, rows }, mutant);
    let table: CompiledDecisionTable;
    try {
      table = compileDecisionTable({
        ...mutated,
        rows: mutated.rows.filter((row) => keep.has(rowIndex.get(row.id as string) as number)),
      });
    } catch {
      invalid++;
      continue;
    }
    const dead = reached.some(
      (i) => !outcomeMatches(outcomeOf(table, scenarios[i].inputFacts), scenarios[i].expectedBehavior),
    );
    if (dead) killed++;
    else if (survivors.length < 100) survivors.push(mutant);
  }
  const counted = mutants.length - invalid;
  return {
    mutants: counted,
    killed,
    survived: counted - killed,
    invalid,
    score: counted === 0 ? 100 : Math.round((killed / counted) * 10000) / 100,
    survivors,
    sampled,
    duration: Math.round((now() - started) * 1000) / 1000,
  };
}
