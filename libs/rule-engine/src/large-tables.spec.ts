/**
 * The index of large tables (checkpointed numeric regions, sparse string literals) and the cells read
 * without the FEEL parser give exactly what each cell's compiled FEEL gives, row by row.
 */
import { compileUnaryTests, parse } from '@arbiter/feel';
import { fastCellShape, shapeOfAst } from './cell-shape';
import { compileDecisionTable } from './compile';
import { sortedSteps } from './matcher';
import { DecisionTableDefinition } from './types';

describe('fastCellShape', () => {
  it.each([
    '"NL"',
    '"NL", "BE"',
    'true',
    'false, true',
    '5',
    '-5',
    '1.5',
    '< 10',
    '<= -3',
    '> 2.25',
    '>= 0',
    '[1..5]',
    '(1..5)',
    ']1..5[',
    '[1 .. 5), 7, > 100',
    '[5..1]',
    '"a,b", "c"',
  ])('reads %s as the FEEL parser does', (cell) => {
    expect(fastCellShape(cell)).toEqual(shapeOfAst(parse(cell, { unaryTests: true })));
  });

  it.each([
    'x',
    '< x',
    '"a\\"b"',
    '1.50',
    '007',
    '-0',
    '1e3',
    'not(5)',
    '"a", 5',
    'true1',
    '[1..x]',
    '5 5',
    '= 5',
    '"NL" or "BE"',
  ])('leaves %s to the FEEL compiler', (cell) => {
    expect(fastCellShape(cell)).toBeNull();
  });
});

describe('large tables', () => {
  let seed = 7;
  const rnd = (n: number) => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) % n;
  const numberCell = () => {
    switch (rnd(7)) {
      case 0:
        return '-';
      case 1:
        return `< ${rnd(5000)}`;
      case 2:
        return `>= ${rnd(5000)}`;
      case 3: {
        const lo = rnd(5000);
        return `[${lo}..${lo + rnd(400)}]`;
      }
      case 4:
        return `${rnd(5000)}, ${rnd(5000)}`;
      case 5: {
        const lo = rnd(5000);
        return `(${lo}..${lo + rnd(50)}), [${lo + 20}..${lo + 300}]`;
      }
      default:
        return `${rnd(5000)} + 0 < ?`; // opaque: only FEEL can tell
    }
  };
  const rows = 3000;
  const codes = rows; // more distinct literals than a dense column keeps: the sparse path
  const def: DecisionTableDefinition = {
    name: 'large',
    hitPolicy: 'Collect',
    inputColumns: [
      { name: 'amount', type: 'number' },
      { name: 'code', type: 'string' },
      { name: 'flag', type: 'boolean' },
    ],
    outputColumns: [{ name: 'n', type: 'number' }],
    rows: Array.from({ length: rows }, (_, i) => ({
      id: `r${i}`,
      inputConditions: {
        amount: numberCell(),
        code: rnd(4) === 0 ? '-' : `"c${rnd(codes)}", "c${rnd(codes)}"`,
        flag: ['-', 'true', 'false'][rnd(3)],
      },
      outputs: { n: i },
    })),
  };
  const cells = def.rows.map((r) =>
    def.inputColumns.map((c) => {
      const text = r.inputConditions![c.name];
      return text === '-' ? null : compileUnaryTests(text);
    }),
  );
  const expected = (input: Record<string, unknown>) =>
    cells
      .map((tests, i) =>
        tests.every((t, c) => !t || t.test(input[def.inputColumns[c].name]) === true) ? i : -1,
      )
      .filter((i) => i >= 0)
      .map((i) => `r${i}`);

  it('match every row the cells match, for values on, between and beyond the bounds', () => {
    const compiled = compileDecisionTable(def);
    for (let k = 0; k < 150; k++) {
      const input = {
        amount: [rnd(5400) - 200, rnd(5000) + 0.5, 5000, -1][rnd(4)],
        code: `c${rnd(codes + 10)}`,
        flag: rnd(2) === 0,
      };
      expect(compiled.evaluate(input).matchedRows).toEqual(expected(input));
    }
  });

  it('compile a table of 20,000 rows without holding (regions × rows) bits', () => {
    const big: DecisionTableDefinition = {
      ...def,
      rows: Array.from({ length: 20_000 }, (_, i) => ({
        id: `r${i}`,
        inputConditions: { amount: `[${i}..${i + 100}]`, code: `"c${i}"` },
        outputs: { n: i },
      })),
    };
    const before = process.memoryUsage().heapUsed;
    const compiled = compileDecisionTable(big, {
      limits: { maxRows: 20_000, maxColumns: 10, maxCellLength: 100 },
    });
    // dense, 40,000 regions × 625 words would be 100 MB for the amount column alone
    expect(process.memoryUsage().heapUsed - before).toBeLessThan(60 * 1024 * 1024);
    expect(compiled.evaluate({ amount: 150, code: 'c120' }).matchedRows).toEqual(['r120']);
    expect(compiled.evaluate({ amount: 150.5, code: 'c150' }).matchedRows).toEqual(['r150']);
    expect(compiled.evaluate({ amount: 150 }).matchedRows).toHaveLength(0);
  });
});

describe('sortedSteps (the sorted bounds of a large numeric column, in steps)', () => {
  it('sorts as TypedArray.sort does, across runs and merges, and pauses on long inputs', () => {
    for (const n of [0, 1, 5, 8192, 8193, 20_000, 70_001]) {
      const values = Float64Array.from({ length: n }, (_, i) => ((i * 7919) % 100_003) / 7 - 5_000);
      const want = Float64Array.from(values).sort();
      const steps = sortedSteps(Float64Array.from(values));
      let pauses = 0;
      let step = steps.next();
      while (!step.done) {
        pauses++;
        step = steps.next();
      }
      expect(Array.from(step.value)).toEqual(Array.from(want));
      if (n > 20_000) expect(pauses).toBeGreaterThan(n / 8192);
    }
  });
});
