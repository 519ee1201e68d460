import { compileDecisionTable } from './compile';
import { EvaluationError } from './errors';
import { compileFlowGraph } from './flow-graph';
import { compileRulesForm } from './rulesets';

/** `rows` rows whose one cell each runs a loop of `size` iterations and never matches. */
function loopTable(rows: number, size: number) {
  return {
    name: 'loops',
    hitPolicy: 'First',
    inputColumns: [{ name: 'x', type: 'number' }],
    outputColumns: [{ name: 'y', type: 'number' }],
    rows: Array.from({ length: rows }, (_, i) => ({
      id: `r${i + 1}`,
      inputConditions: { x: `count(for i in 1..${size} return i) < 0` },
      outputs: { y: i },
    })),
  };
}

function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (e) {
    return e;
  }
  throw new Error('expected an error');
}

describe('one FEEL step budget per table evaluation', () => {
  it('every cell of one evaluation spends the same budget', () => {
    // 20 rows × ~2,000 steps: 40,000 steps in all, each cell alone far below the budget
    const table = compileDecisionTable(loopTable(20, 1000), { maxSteps: 30_000 });
    const e = thrown(() => table.evaluate({ x: 1 }));
    expect(e).toBeInstanceOf(EvaluationError);
    expect(e).toMatchObject({ code: 'EVALUATION_BUDGET_EXCEEDED' });
    // the next evaluation starts with a full budget again
    expect(compileDecisionTable(loopTable(10, 1000), { maxSteps: 30_000 }).evaluate({ x: 1 })).toEqual({
      matchedRows: [],
      outputRows: [],
      outputValues: null,
    });
  });

  it('a crafted 200-row table is cut off quickly, and the table keeps answering', () => {
    const table = compileDecisionTable(loopTable(200, 100_000), { maxSteps: 1_000_000 });
    const started = Date.now();
    expect(thrown(() => table.evaluate({ x: 1 }))).toMatchObject({ code: 'EVALUATION_BUDGET_EXCEEDED' });
    expect(Date.now() - started).toBeLessThan(5_000);
    const small = compileDecisionTable(loopTable(2, 10), { maxSteps: 1_000_000 });
    expect(small.evaluate({ x: 1 }).matchedRows).toEqual([]);
  });

  it('a deadline cuts an evaluation off with DEADLINE_EXCEEDED', () => {
    const table = compileDecisionTable(loopTable(200, 100_000));
    const started = Date.now();
    expect(thrown(() => table.evaluate({ x: 1 }, Date.now() + 100))).toMatchObject({
      code: 'DEADLINE_EXCEEDED',
    });
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('computed input columns spend the same budget', () => {
    const table = compileDecisionTable(
      {
        ...loopTable(0, 0),
        inputColumns: [{ name: 'n', type: 'number', expression: 'count(for i in 1..5000 return i)' }],
        rows: [{ inputConditions: { n: '> 0' }, outputs: { y: 1 } }],
      },
      { maxSteps: 5_000 },
    );
    expect(thrown(() => table.evaluate({}))).toMatchObject({ code: 'EVALUATION_BUDGET_EXCEEDED' });
  });
});

describe('one FEEL step budget per rule-set evaluation', () => {
  it('rules form: tables and rules share it; running out stops the evaluation with its code', async () => {
    const set = await compileRulesForm({
      decisionTables: [loopTable(3, 1000)],
      rules: [
        { id: '1', name: 'a', condition: 'count(for i in 1..1000 return i) > 0', output: { a: true } },
        { id: '2', name: 'b', condition: 'count(for i in 1..1000 return i) > 0', output: { b: true } },
        { id: '3', name: 'c', condition: 'true', output: { c: true } },
      ],
    });
    // the table alone (~6,000 steps) and rule a (~2,000) fit in 9,000; rule b does not
    const r = await set.evaluate({ x: 1 }, { maxSteps: 9_000 });
    expect(r.rulesMatched).toEqual(['a']);
    expect(r.errors).toEqual([
      { ruleName: 'b', code: 'EVALUATION_BUDGET_EXCEEDED', message: expect.any(String) },
    ]);
    expect(r.outputs.c).toBeUndefined();
    // a table that runs out
    const t = await set.evaluate({ x: 1 }, { maxSteps: 3_000 });
    expect(t.errors).toEqual([
      { ruleName: 'loops', code: 'EVALUATION_BUDGET_EXCEEDED', message: expect.any(String) },
    ]);
  });

  it('rules form: the deadline holds inside a FEEL expression', async () => {
    const set = await compileRulesForm({
      rules: [{ id: '1', name: 'slow', condition: 'count(for i in 1..2000, j in 1..2000 return i) > 0' }],
    });
    const started = Date.now();
    const r = await set.evaluate({}, { deadline: Date.now() + 100 });
    expect(r.errors).toEqual([{ ruleName: 'slow', code: 'DEADLINE_EXCEEDED', message: expect.any(String) }]);
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('flow graph: nodes and tables share it; running out ends the run whatever the edges', async () => {
    const flow = await compileFlowGraph({
      nodes: [
        {
          id: 'f1',
          kind: 'feel-expression',
          config: { expression: 'count(for i in 1..1000 return i)', outputVariable: 'n1' },
          edges: [{ kind: 'next', target: 'f2' }],
        },
        {
          id: 'f2',
          kind: 'feel-expression',
          config: { expression: 'count(for i in 1..1000 return i)', outputVariable: 'n2' },
          edges: [
            { kind: 'next', target: 't' },
            { kind: 'on-error', target: 'handler' },
          ],
        },
        {
          id: 't',
          kind: 'decision-table',
          config: { table: loopTable(5, 1000), outputVariable: 'table' },
        },
        { id: 'handler', kind: 'feel-expression', config: { expression: '1', outputVariable: 'handled' } },
      ],
    });
    const full = await flow.evaluate({ x: 1 }, { maxSteps: 100_000 });
    expect(full.errors).toEqual([]);
    expect(full.outputs).toMatchObject({ n1: 1000, n2: 1000, table: null });
    const short = await flow.evaluate({ x: 1 }, { maxSteps: 3_000 });
    expect(short.errors).toEqual([
      { ruleName: 'f2', code: 'EVALUATION_BUDGET_EXCEEDED', message: expect.any(String) },
    ]);
    expect(short.outputs).toEqual({ n1: 1000 });
    const table = await flow.evaluate({ x: 1 }, { maxSteps: 6_000 });
    expect(table.errors).toEqual([
      { ruleName: 't', code: 'EVALUATION_BUDGET_EXCEEDED', message: expect.any(String) },
    ]);
  });
});
