import { diffVersions, summarizeChange } from './table-diff';
import { StoredDefinition } from './table-model';

const base: StoredDefinition = {
  name: 'Loan risk',
  hitPolicy: 'First',
  inputColumns: [{ name: 'age', type: 'number' }],
  outputColumns: [{ name: 'risk', type: 'string' }],
  rows: [
    { id: 'r1', priority: 1, inputConditions: { age: '< 18' }, outputs: { risk: 'minor' } },
    { id: 'r2', priority: 2, inputConditions: { age: '>= 18' }, outputs: { risk: 'adult' } },
  ],
};

describe('diffVersions', () => {
  it('reports no change between equal definitions', () => {
    const diff = diffVersions(1, base, 2, structuredClone(base));
    expect(diff).toEqual({
      fromVersion: 1,
      toVersion: 2,
      changes: {},
      addedRows: [],
      removedRows: [],
      modifiedRows: [],
    });
    expect(summarizeChange(diff)).toBe('no changes');
  });

  it('lists the table-level fields that differ, with from and to (absent is null)', () => {
    const next = { ...base, name: 'Risk', hitPolicy: 'Unique', description: 'new' };
    expect(diffVersions(1, base, 2, next).changes).toEqual({
      name: { from: 'Loan risk', to: 'Risk' },
      hitPolicy: { from: 'First', to: 'Unique' },
      description: { from: null, to: 'new' },
    });
  });

  it('follows rows by id: added, removed and modified rows with per-cell changes', () => {
    const next: StoredDefinition = {
      ...base,
      rows: [
        { id: 'r1', priority: 5, inputConditions: { age: '< 16' }, outputs: { risk: 'child' } },
        { id: 'r3', priority: 3, inputConditions: {}, outputs: { risk: 'unknown' } },
      ],
    };
    const diff = diffVersions(3, base, 4, next);
    expect(diff.addedRows).toEqual([{ rowId: 'r3', inputConditions: {}, outputs: { risk: 'unknown' } }]);
    expect(diff.removedRows).toEqual(['r2']);
    expect(diff.modifiedRows).toEqual([
      {
        rowId: 'r1',
        changes: {
          outputs: { risk: { from: 'minor', to: 'child' } },
          inputConditions: { age: { from: '< 18', to: '< 16' } },
          priority: { from: 1, to: 5 },
        },
      },
    ]);
    expect(summarizeChange(diff)).toBe('1 row(s) added; 1 row(s) removed; 1 row(s) modified');
  });

  it('sees a condition that appears or disappears as a change from/to null', () => {
    const next = structuredClone(base);
    next.rows[1].inputConditions = {};
    next.rows[1].outputs.extra = true;
    expect(diffVersions(1, base, 2, next).modifiedRows).toEqual([
      {
        rowId: 'r2',
        changes: {
          outputs: { extra: { from: null, to: true } },
          inputConditions: { age: { from: '>= 18', to: null } },
        },
      },
    ]);
  });

  it('summarizes field changes first', () => {
    const next = { ...base, name: 'Risk', rows: base.rows.slice(0, 1) };
    expect(summarizeChange(diffVersions(1, base, 2, next))).toBe('changed name; 1 row(s) removed');
  });
});
