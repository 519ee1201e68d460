import { validateDecisionTable } from './validate';

describe('table analysis', () => {
  const def = {
    name: 'a',
    hitPolicy: 'First',
    inputColumns: [
      { name: 'age', type: 'number' },
      { name: 'tier', type: 'string' },
    ],
    outputColumns: [{ name: 'o', type: 'string' }],
    rows: [
      { id: 'r1', inputConditions: { age: '[0..17]', tier: '-' }, outputs: { o: 'minor' } },
      { id: 'r2', inputConditions: { age: '[18..65]', tier: '"gold","silver"' }, outputs: { o: 'adult' } },
      { id: 'r3', inputConditions: { age: '[20..30]', tier: '"gold"' }, outputs: { o: 'never' } },
      { id: 'r4', inputConditions: { age: '> 65', tier: '"gold"' }, outputs: { o: 'senior' } },
    ],
  };

  it('finds overlaps, redundant rows and gaps with an example input', () => {
    const result = validateDecisionTable(def);
    expect(result.valid).toBe(true);
    const a = result.analysis!;
    expect(a.overlaps).toEqual([{ rowIds: ['r2', 'r3'], columns: ['age', 'tier'] }]);
    expect(a.redundantRows).toEqual([{ rowId: 'r3', subsumedBy: 'r2' }]);
    expect(a.gaps.length).toBeGreaterThan(0);
    expect(a.complete).toBe(true);
    // every example really matches no row
    const { compileDecisionTable } = jest.requireActual('./compile');
    const t = compileDecisionTable(def);
    for (const gap of a.gaps) expect(t.evaluate(gap.example).matchedRows).toEqual([]);
    expect(a.gaps[0].example).toEqual({ age: -1, tier: 'gold' });
  });

  it('reports no gaps for a complete table and half-open range overlaps correctly', () => {
    const full = {
      name: 'f',
      hitPolicy: 'Unique',
      inputColumns: [{ name: 'x', type: 'number' }],
      outputColumns: [{ name: 'o' }],
      rows: [
        { id: 'a', inputConditions: { x: '< 10' }, outputs: { o: 1 } },
        { id: 'b', inputConditions: { x: '[10..20)' }, outputs: { o: 2 } },
        { id: 'c', inputConditions: { x: '>= 20' }, outputs: { o: 3 } },
      ],
    };
    const a = validateDecisionTable(full).analysis!;
    expect(a.gaps).toEqual([]);
    expect(a.overlaps).toEqual([]);
    full.rows[1].inputConditions.x = '[10..20]';
    expect(validateDecisionTable(full).analysis!.overlaps).toEqual([{ rowIds: ['b', 'c'], columns: ['x'] }]);
  });

  it('says when a list is cut: every overlap is counted, one gap past the list marks it truncated', () => {
    // 20 rows on one column that all accept 0: 190 overlapping pairs, the list holds 100
    const wide = {
      name: 'w',
      hitPolicy: 'Collect',
      inputColumns: [{ name: 'x', type: 'number' }],
      outputColumns: [{ name: 'o' }],
      rows: Array.from({ length: 20 }, (_, i) => ({
        id: `r${i}`,
        inputConditions: { x: `[0..${i + 1}]` },
        outputs: { o: i },
      })),
    };
    const a = validateDecisionTable(wide).analysis!;
    expect(a.overlaps).toHaveLength(100);
    expect(a.overlapCount).toBe(190);
    expect(a.overlapsTruncated).toBe(true);
    expect(a.complete).toBe(true); // a cut list is no limit of the proof
    // 12 strings each matched by its own row only below 0: gaps for every string above it and more
    const gappy = {
      name: 'g',
      hitPolicy: 'First',
      inputColumns: [
        { name: 's', type: 'string' },
        { name: 'x', type: 'number' },
      ],
      outputColumns: [{ name: 'o' }],
      rows: Array.from({ length: 12 }, (_, i) => ({
        id: `g${i}`,
        inputConditions: { s: `"v${i}"`, x: '< 0' },
        outputs: { o: i },
      })),
    };
    const g = validateDecisionTable(gappy).analysis!;
    expect(g.gaps).toHaveLength(10);
    expect(g.gapsTruncated).toBe(true);
    expect(validateDecisionTable(def).analysis!).toMatchObject({ overlapCount: 1, overlapsTruncated: false });
    const few = validateDecisionTable({ ...gappy, rows: gappy.rows.slice(0, 1) }).analysis!;
    expect(few.gaps.length).toBeGreaterThan(0);
    expect(few.gaps.length).toBeLessThan(10);
    expect(few.gapsTruncated).toBe(false);
  });

  it('returns errors with row and column instead of throwing', () => {
    const bad = { ...def, rows: [{ id: 'x', inputConditions: { age: '>>' }, outputs: {} }] };
    const r = validateDecisionTable(bad);
    expect(r.valid).toBe(false);
    expect(r.errors[0]).toMatchObject({ rowId: 'x', column: 'age' });
    expect(validateDecisionTable({ name: '', hitPolicy: 'Nope' }).errors.map((e) => e.message)).toEqual(
      expect.arrayContaining(['name is required', "hitPolicy 'Nope' is not supported"]),
    );
  });
});
