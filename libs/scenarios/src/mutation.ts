/**
 * Mutation testing of a decision table: small faults a person could make are injected one at a time —
 * a comparison flipped (`<` ↔ `>=`, `<=` ↔ `>`, `=` ↔ `!=`, a range end's bracket turned), a boundary moved
 * by one step either way, a row dropped — each mutant is compiled by the engine and the scenarios run
 * against it; a mutant is killed when some scenario no longer gets its expected behaviour. The score
 * (killed / mutants) is the honest measure of whether the scenarios test anything.
 */
import { compileUnaryTests, type Node } from '@arbiter/feel';
import {
  compileDecisionTable,
  type CompiledDecisionTable,
  type DecisionTableDefinition,
} from '@arbiter/rule-engine';
import { feelLiteralAt, orderedLiteral } from './literals';
import { Prng } from './prng';
import { RunnableScenario, outcomeMatches } from './run-table';
import { EvaluationError } from '@arbiter/rule-engine';

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

function killedBy(table: CompiledDecisionTable, scenario: RunnableScenario): boolean {
  try {
    const result = table.evaluate(scenario.inputFacts);
    return !outcomeMatches({ result, errorCode: null, message: null }, scenario.expectedBehavior);
  } catch (e) {
    const code = e instanceof EvaluationError ? e.code : 'UNEXPECTED';
    return !outcomeMatches({ result: null, errorCode: code, message: null }, scenario.expectedBehavior);
  }
}

export interface MutationOptions {
  seed?: number;
  /** run at most this many mutants (a seeded sample); default 2,000 */
  maxMutants?: number;
  now?: () => number;
}

/** Runs every mutant (or a seeded sample) against the scenarios; scenarios aimed at the mutated row go first. */
export function mutationRun(
  definition: DecisionTableDefinition,
  scenarios: (RunnableScenario & { origin?: { rowId?: string } })[],
  options: MutationOptions = {},
): MutationReport {
  const now = options.now ?? (() => performance.now());
  const started = now();
  const all = tableMutants(definition);
  const max = options.maxMutants ?? 2000;
  const sampled = all.length > max;
  const mutants = sampled ? new Prng(options.seed ?? 1).shuffle(all).slice(0, max) : all;
  const byRow = new Map<string, RunnableScenario[]>();
  for (const s of scenarios) {
    const rowId = s.origin?.rowId ?? s.expectedBehavior.targetRowId ?? null;
    if (!rowId) continue;
    const list = byRow.get(rowId) ?? [];
    list.push(s);
    byRow.set(rowId, list);
  }
  let killed = 0;
  let invalid = 0;
  const survivors: Mutant[] = [];
  for (const mutant of mutants) {
    let table: CompiledDecisionTable;
    try {
      table = compileDecisionTable(apply(definition, mutant));
    } catch {
      invalid++;
      continue;
    }
    const first = byRow.get(mutant.rowId) ?? [];
    let dead = first.some((s) => killedBy(table, s));
    if (!dead) dead = scenarios.some((s) => killedBy(table, s));
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
