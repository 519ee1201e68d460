import { bigTable, LOAN_TABLE } from './fixtures';
import { generateTableScenarios } from './generate-table';
import { hashFacts } from './canonical';
import { runTableScenarios } from './run-table';
import { mutationRun } from './mutation';

describe('generateTableScenarios', () => {
  const plan = generateTableScenarios(LOAN_TABLE, { seedRuleCode: 'loan', seed: 42 });

  it('is deterministic: the same seed gives the same scenarios', () => {
    const again = generateTableScenarios(LOAN_TABLE, { seedRuleCode: 'loan', seed: 42 });
    expect(again.scenarios).toEqual(plan.scenarios);
    const other = generateTableScenarios(LOAN_TABLE, { seedRuleCode: 'loan', seed: 43 });
    expect(other.scenarios.map((s) => s.hash)).not.toEqual(plan.scenarios.map((s) => s.hash));
  });

  it('reads the boundaries of every condition: just below, on and just above 5000', () => {
    // 5000 is the row's own matching input (RowMatch): its boundary twin is the same facts, removed as a duplicate
    const amounts = plan.scenarios.filter((s) => s.origin.rowId === 'r1').map((s) => s.inputFacts.amount);
    expect(amounts).toEqual(expect.arrayContaining([4999, 5000, 5001]));
    expect(
      plan.scenarios.find((s) => s.origin.rowId === 'r1' && s.type === 'RowMatch')!.inputFacts.amount,
    ).toBe(5000);
    const r2 = plan.scenarios.filter((s) => s.origin.rowId === 'r2').map((s) => s.inputFacts.amount);
    expect(r2).toEqual(expect.arrayContaining([999, 1000, 1001, 4999, 5000, 5001]));
    const since = plan.scenarios.filter((s) => s.origin.rowId === 'r2').map((s) => s.inputFacts.since);
    expect(since).toEqual(expect.arrayContaining(['2019-12-31', '2020-01-01', '2020-01-02']));
    // (a twin built for another row may already hold the facts: the first one is kept)
    const term = plan.scenarios.map((s) => s.inputFacts.term);
    expect(term).toEqual(expect.arrayContaining(['P29DT23H59M59S', 'P30D', 'P30DT1S']));
    expect(
      plan.scenarios.some((s) => s.type === 'EquivalenceClass' && s.inputFacts.risk === 'other risk'),
    ).toBe(true);
  });

  it('states the expected row and output from the table', () => {
    const on = plan.scenarios.find((s) => s.origin.rowId === 'r1' && s.type === 'RowMatch')!;
    expect(on.expectedBehavior).toMatchObject({
      matchedRows: ['r1'],
      outputs: { decision: 'reject' },
      targetRowId: 'r1',
    });
    const below = plan.scenarios.find(
      (s) => s.origin.rowId === 'r1' && s.origin.column === 'amount' && s.origin.probe === 'below',
    )!;
    expect(below.type).toBe('McDc');
    expect(below.expectedBehavior.matchedRows).not.toContain('r1');
  });

  it('has missing and null inputs, pairwise cross-row combinations, and no duplicate facts', () => {
    const types = new Set(plan.scenarios.map((s) => s.type));
    for (const t of [
      'RowMatch',
      'Boundary',
      'McDc',
      'EquivalenceClass',
      'MissingInput',
      'NullInput',
      'Pairwise',
    ])
      expect(types).toContain(t);
    expect(plan.scenarios.find((s) => s.type === 'Pairwise')!.scope).toBe('CrossRule');
    const hashes = plan.scenarios.map((s) => s.hash);
    expect(new Set(hashes).size).toBe(hashes.length);
    expect(plan.scenarios.every((s) => s.hash === hashFacts(s.inputFacts))).toBe(true);
    expect(plan.duplicatesRemoved).toBeGreaterThan(0);
    expect(plan.candidates).toBe(plan.scenarios.length + plan.duplicatesRemoved);
  });

  it('pairwise combinations stay far below the cartesian product on a wide table', () => {
    const big = generateTableScenarios(bigTable(40), { seedRuleCode: 'big', seed: 1 });
    const pairs = big.scenarios.filter((s) => s.type === 'Pairwise').length;
    expect(pairs).toBeGreaterThan(0);
    expect(pairs).toBeLessThan(6 * 6 * 6);
  });
});

describe('runTableScenarios', () => {
  const plan = generateTableScenarios(LOAN_TABLE, { seedRuleCode: 'loan', seed: 42 });

  it('the table as written passes every scenario with full row and condition coverage', () => {
    const report = runTableScenarios(LOAN_TABLE, plan.scenarios);
    expect(report.failed + report.errored).toBe(0);
    expect(report.passed).toBe(plan.scenarios.length);
    expect(report.coverage.rows).toMatchObject({ total: 4, hit: 4, percent: 100 });
    expect(report.coverage.conditions.percent).toBe(100);
    expect(report.results[0]).toMatchObject({ status: 'Passed', isSuccess: true, matchesExpectation: true });
  });

  it('a moved boundary fails the scenario on it and names the row, column and boundary', () => {
    const candidate = structuredClone(LOAN_TABLE);
    candidate.rows[0].inputConditions.amount = '>= 5001';
    const report = runTableScenarios(candidate, plan.scenarios);
    expect(report.failed).toBeGreaterThan(0);
    const i = plan.scenarios.findIndex((s) => s.origin.rowId === 'r1' && s.type === 'RowMatch');
    const result = report.results[i];
    expect(result).toMatchObject({ status: 'Failed', isSuccess: true, matchesExpectation: false });
    expect(result.analysis).toContainEqual(
      expect.objectContaining({ rowId: 'r1', column: 'amount', value: 5000, cell: '>= 5001' }),
    );
    expect(result.analysis[0].message).toMatch(/amount = 5000 is outside '>= 5001' of r1/);
  });

  it('row coverage reports rows no scenario reaches', () => {
    const report = runTableScenarios(
      LOAN_TABLE,
      plan.scenarios.filter((s) => s.expectedBehavior.matchedRows[0] !== 'r4'),
    );
    expect(report.coverage.rows.unhit).toEqual(['r4']);
    expect(report.coverage.rows.percent).toBe(75);
  });

  it('a required input given as null is an expected refusal, not a failure', () => {
    const table = structuredClone(LOAN_TABLE);
    table.inputColumns[0].required = true;
    const p = generateTableScenarios(table, { seedRuleCode: 'loan', seed: 1 });
    const missing = p.scenarios.find((s) => s.type === 'MissingInput' && s.origin.column === 'amount')!;
    expect(missing.expectedBehavior.errorCode).toBe('MISSING_REQUIRED_INPUT');
    const report = runTableScenarios(table, p.scenarios);
    expect(report.failed + report.errored).toBe(0);
    // the candidate makes the input optional: the refusal no longer happens
    const optional = runTableScenarios(LOAN_TABLE, [missing]);
    expect(optional.results[0]).toMatchObject({ status: 'Failed', matchesExpectation: false });
  });
});

describe('mutationRun', () => {
  it('kills the mutants of the example table', () => {
    const plan = generateTableScenarios(LOAN_TABLE, { seedRuleCode: 'loan', seed: 42 });
    const report = mutationRun(LOAN_TABLE, plan.scenarios);
    expect(report.mutants).toBeGreaterThan(20);
    expect(report.score).toBeGreaterThanOrEqual(90);
  });
  it('scenarios that test nothing kill nothing but dropped rows they happen to reach', () => {
    const plan = generateTableScenarios(LOAN_TABLE, { seedRuleCode: 'loan', seed: 42 });
    const weak = plan.scenarios.filter((s) => s.type === 'MissingInput');
    const strong = mutationRun(LOAN_TABLE, plan.scenarios);
    const report = mutationRun(LOAN_TABLE, weak);
    expect(report.score).toBeLessThan(strong.score);
    expect(report.survivors.length).toBeGreaterThan(0);
  });
});

describe('conditions comparing the input with another input', () => {
  const compare = {
    name: 'Compare Number',
    hitPolicy: 'Unique',
    inputColumns: [{ name: 'Another number', type: 'number' }],
    outputColumns: [{ name: 'result', type: 'string' }],
    rows: [
      { id: 'same', inputConditions: { 'Another number': 'Complex.aNumber' }, outputs: { result: 'Equals' } },
      {
        id: 'bigger',
        inputConditions: { 'Another number': '> Complex.aNumber' },
        outputs: { result: 'Bigger' },
      },
      {
        id: 'smaller',
        inputConditions: { 'Another number': '< Complex.aNumber' },
        outputs: { result: 'Smaller' },
      },
    ],
  };
  const range = {
    name: 'priceInRange',
    hitPolicy: 'First',
    inputColumns: [{ name: 'price', type: 'number' }],
    outputColumns: [{ name: 'r', type: 'string' }],
    rows: [
      { id: 'in', inputConditions: { price: '[numB..numC]' }, outputs: { r: 'In range' } },
      { id: 'out', inputConditions: {}, outputs: { r: 'Not in range' } },
    ],
  };

  it.each([compare, range])('solves %s from the other fact and reaches every row', (table) => {
    const plan = generateTableScenarios(table, { seedRuleCode: table.name });
    const report = runTableScenarios(table, plan.scenarios);
    expect(report.coverage.rows.percent).toBe(100);
    expect(report.failed + report.errored).toBe(0);
  });

  it('gives the values one step below, on and above the other fact', () => {
    const plan = generateTableScenarios(compare, { seedRuleCode: 'c' });
    const offsets = new Set(
      plan.scenarios
        .filter(
          (s) =>
            typeof (s.inputFacts.Complex as { aNumber?: number })?.aNumber === 'number' &&
            typeof s.inputFacts['Another number'] === 'number',
        )
        .map(
          (s) =>
            (s.inputFacts['Another number'] as number) -
            (s.inputFacts.Complex as { aNumber: number }).aNumber,
        ),
    );
    expect([...offsets].sort()).toEqual([-1, 0, 1]);
  });
});
