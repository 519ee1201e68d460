import { compileDecisionTable } from './compile';
import { EvaluationError, TableCompileError } from './errors';
import { DecisionTableDefinition } from './types';

const table = (over: Partial<DecisionTableDefinition> = {}): DecisionTableDefinition => ({
  name: 't',
  hitPolicy: 'First',
  inputColumns: [
    { name: 'age', type: 'number', required: true },
    { name: 'country', type: 'string' },
  ],
  outputColumns: [{ name: 'risk', type: 'string' }],
  rows: [
    { id: 'r1', inputConditions: { age: '< 18' }, outputs: { risk: 'minor' } },
    { id: 'r2', inputConditions: { age: '[18..65]', country: '"NL","BE"' }, outputs: { risk: 'low' } },
    { id: 'r3', inputConditions: { age: '>= 18' }, outputs: { risk: 'high' } },
  ],
  ...over,
});

const err = (fn: () => unknown): EvaluationError => {
  try {
    fn();
  } catch (e) {
    return e as EvaluationError;
  }
  throw new Error('no error');
};

describe('compileDecisionTable', () => {
  it('First returns the first matching row', () => {
    const t = compileDecisionTable(table());
    expect(t.evaluate({ age: 10 })).toEqual({
      matchedRows: ['r1'],
      outputRows: [{ rowId: 'r1', outputs: { risk: 'minor' } }],
      outputValues: { risk: 'minor' },
    });
    expect(t.evaluate({ age: 30, country: 'NL' }).matchedRows).toEqual(['r2']);
    expect(t.evaluate({ age: 30, country: 'DE' }).matchedRows).toEqual(['r3']);
    expect(t.evaluate({ age: 18, country: 'BE' }).matchedRows).toEqual(['r2']);
    expect(t.evaluate({ age: 65.5, country: 'BE' }).matchedRows).toEqual(['r3']);
  });

  it('checks required inputs and types', () => {
    const t = compileDecisionTable(table());
    expect(err(() => t.evaluate({})).code).toBe('MISSING_REQUIRED_INPUT');
    expect(err(() => t.evaluate({ age: '10' })).code).toBe('INPUT_TYPE_MISMATCH');
    expect(err(() => t.evaluate({ age: 1, country: 5 })).column).toBe('country');
  });

  it('Unique reports two matches as a violation', () => {
    const t = compileDecisionTable(table({ hitPolicy: 'Unique' }));
    expect(t.evaluate({ age: 10 }).outputValues).toEqual({ risk: 'minor' });
    const e = err(() => t.evaluate({ age: 30, country: 'NL' }));
    expect(e.code).toBe('HIT_POLICY_VIOLATION');
    expect(e.rowIds).toEqual(['r2', 'r3']);
  });

  it('Any accepts equal outputs and refuses different ones', () => {
    const t = compileDecisionTable(table({ hitPolicy: 'Any' }));
    expect(err(() => t.evaluate({ age: 30, country: 'NL' })).code).toBe('HIT_POLICY_VIOLATION');
    const same = table({ hitPolicy: 'A' });
    same.rows[2].outputs.risk = 'low';
    expect(compileDecisionTable(same).evaluate({ age: 30, country: 'NL' }).outputValues).toEqual({
      risk: 'low',
    });
  });

  it('Priority and OutputOrder follow the output values list', () => {
    const def = table({ hitPolicy: 'Priority' });
    def.outputColumns[0].outputValues = ['high', 'low', 'minor'];
    expect(compileDecisionTable(def).evaluate({ age: 30, country: 'NL' }).outputValues).toEqual({
      risk: 'high',
    });
    const oo = compileDecisionTable({ ...def, hitPolicy: 'OUTPUT ORDER' }).evaluate({
      age: 30,
      country: 'NL',
    });
    expect(oo.outputValues).toEqual({ risk: ['high', 'low'] });
    expect(oo.matchedRows).toEqual(['r2', 'r3']);
  });

  it('Collect, RuleOrder and All list every match in rule order', () => {
    for (const hp of ['Collect', 'RuleOrder', 'All', 'RULE ORDER', 'C'])
      expect(
        compileDecisionTable(table({ hitPolicy: hp })).evaluate({ age: 30, country: 'NL' }).outputValues,
      ).toEqual({
        risk: ['low', 'high'],
      });
  });

  it('aggregates with CollectSum/Min/Max/Count', () => {
    const def: DecisionTableDefinition = {
      name: 'agg',
      hitPolicy: 'CollectSum',
      inputColumns: [{ name: 'x', type: 'number' }],
      outputColumns: [{ name: 'score', type: 'number' }],
      rows: [
        { inputConditions: { x: '> 0' }, outputs: { score: 10 } },
        { inputConditions: { x: '> 5' }, outputs: { score: 5 } },
        { inputConditions: { x: '> 100' }, outputs: { score: 1 } },
      ],
    };
    const run = (hp: string, x: number) =>
      compileDecisionTable({ ...def, hitPolicy: hp }).evaluate({ x }).outputValues;
    expect(run('CollectSum', 7)).toEqual({ score: 15 });
    expect(run('C+', 7)).toEqual({ score: 15 });
    expect(run('CollectMin', 7)).toEqual({ score: 5 });
    expect(run('CollectMax', 7)).toEqual({ score: 10 });
    expect(run('CollectCount', 7)).toEqual({ score: 2 });
    expect(run('CollectCount', -1)).toEqual({ score: 0 });
    expect(run('CollectSum', -1)).toEqual({ score: null });
    expect(run('Collect', -1)).toEqual({ score: [] });
  });

  it('uses default outputs when nothing matches', () => {
    const def = table();
    def.outputColumns[0].defaultValue = 'unknown';
    def.rows = def.rows.slice(0, 1);
    expect(compileDecisionTable(def).evaluate({ age: 40 }).outputValues).toEqual({ risk: 'unknown' });
    expect(compileDecisionTable(table({ rows: [] })).evaluate({ age: 1 }).outputValues).toBeNull();
  });

  it('evaluates opaque FEEL cells, booleans and temporal columns', () => {
    const t = compileDecisionTable({
      name: 'x',
      hitPolicy: 'Collect',
      inputColumns: [
        { name: 'amount', type: 'number' },
        { name: 'vip', type: 'boolean' },
        { name: 'day', type: 'date' },
        { name: 'limit', type: 'number' },
      ],
      outputColumns: [{ name: 'o' }],
      rows: [
        { id: 'a', inputConditions: { amount: '> limit * 2' }, outputs: { o: 'a' } },
        { id: 'b', inputConditions: { vip: 'true' }, outputs: { o: 'b' } },
        { id: 'c', inputConditions: { day: '>= date("2024-01-01")' }, outputs: { o: 'c' } },
        { id: 'd', inputConditions: { amount: 'not(5)' }, outputs: { o: 'd' } },
      ],
    });
    expect(t.evaluate({ amount: 5, vip: true, day: '2024-02-01', limit: 1 }).matchedRows).toEqual([
      'a',
      'b',
      'c',
    ]);
    expect(t.evaluate({ amount: 6, vip: false, day: '2023-02-01', limit: 10 }).matchedRows).toEqual(['d']);
    expect(err(() => t.evaluate({ day: 'yesterday' })).code).toBe('INPUT_TYPE_MISMATCH');
  });

  it('computes column values from an input expression', () => {
    const t = compileDecisionTable({
      name: 'e',
      hitPolicy: 'First',
      inputColumns: [{ name: 'total', expression: 'price * qty' }],
      outputColumns: [{ name: 'big' }],
      rows: [{ inputConditions: { total: '> 100' }, outputs: { big: true } }],
    });
    expect(t.evaluate({ price: 20, qty: 6 }).outputValues).toEqual({ big: true });
    expect(t.evaluate({ price: 20, qty: 1 }).outputValues).toBeNull();
  });

  it('refuses bad FEEL with row and column', () => {
    const def = table();
    def.rows[1].inputConditions.age = '[1..';
    try {
      compileDecisionTable(def);
      throw new Error('compiled');
    } catch (e) {
      expect(e).toBeInstanceOf(TableCompileError);
      expect((e as TableCompileError).problems[0]).toMatchObject({ rowId: 'r2', column: 'age' });
    }
  });

  it.each([60, 12, 3])(
    'agrees with a plain scan on random tables of %i rows (the index, and the scan of small tables, are exact)',
    (size) => {
      const { compileUnaryTests } = jest.requireActual('@arbiter/feel');
      let seed = 7;
      const rnd = (n: number) => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) % n;
      const cellFor = (c: number): string => {
        if (c === 0) return ['-', '"a"', '"b","c"', 'not("a")'][rnd(4)];
        if (c === 1)
          return [
            '-',
            `< ${rnd(20)}`,
            `[${rnd(10)}..${10 + rnd(10)}]`,
            `${rnd(20)}`,
            `>= ${rnd(20)}`,
            `(${rnd(10)}..${10 + rnd(10)})`,
          ][rnd(6)];
        return ['-', 'true', 'false'][rnd(3)];
      };
      const rows = Array.from({ length: size }, (_, i) => ({
        id: `r${i}`,
        inputConditions: { s: cellFor(0), n: cellFor(1), b: cellFor(2) },
        outputs: { o: i },
      }));
      const t = compileDecisionTable({
        name: 'rnd',
        hitPolicy: 'Collect',
        inputColumns: [{ name: 's' }, { name: 'n' }, { name: 'b' }],
        outputColumns: [{ name: 'o' }],
        rows,
      });
      const tests = rows.map((r) =>
        Object.entries(r.inputConditions).map(([k, v]) => [k, compileUnaryTests(v)] as const),
      );
      for (let k = 0; k < 500; k++) {
        const input = {
          s: ['a', 'b', 'c', 'd', null, 1][rnd(6)],
          n: [rnd(22) - 1, rnd(20) + 0.5, null, 'x'][rnd(4)],
          b: [true, false, null][rnd(3)],
        };
        const expected = rows
          .filter((_, i) => tests[i].every(([col, test]) => test.test((input as any)[col]) === true))
          .map((r) => r.id);
        expect(t.evaluate(input).matchedRows).toEqual(expected);
      }
    },
  );

  it('keeps compiled FEEL only for opaque cells (memory: the index decides the others)', () => {
    const t = compileDecisionTable({
      name: 'lean',
      hitPolicy: 'Collect',
      inputColumns: [{ name: 'n' }, { name: 's' }],
      outputColumns: [{ name: 'o' }],
      rows: [
        { id: 'a', inputConditions: { n: '[1..5]', s: '"x"' }, outputs: { o: 1 } },
        { id: 'b', inputConditions: { n: 'odd(?)', s: '-' }, outputs: { o: 2 } },
      ],
    });
    expect(t.table.rows.map((r) => r.tests.map((x) => x !== null))).toEqual([
      [false, false],
      [true, false],
    ]);
    expect(t.evaluate({ n: 3, s: 'x' }).matchedRows).toEqual(['a', 'b']);
    expect(t.evaluate({ n: 2, s: 'y' }).matchedRows).toEqual([]);
  });
});
