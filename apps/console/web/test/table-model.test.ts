import { describe, expect, it } from 'vitest';
import { diffLines, pairRows } from '../src/diff-lines';
import {
  addColumn,
  addRow,
  coerce,
  deleteColumn,
  deleteRow,
  moveRow,
  setCell,
  TableDefinition,
  toBody,
} from '../src/table-model';

const table = (): TableDefinition => ({
  name: 'Risk',
  hitPolicy: 'First',
  inputColumns: [{ name: 'age', type: 'number' }],
  outputColumns: [
    { name: 'risk', type: 'string' },
    { name: 'limit', type: 'number' },
  ],
  rows: [
    { id: 'r1', inputConditions: { age: '>= 18' }, outputs: { risk: 'low', limit: 100 } },
    { id: 'r2', inputConditions: { age: '< 18' }, outputs: { risk: 'minor' } },
  ],
});

describe('decision-table grid model (the browser-side logic of the editor)', () => {
  it('adds rows with ids no row uses, moves and deletes them without touching the original', () => {
    const t = table();
    const withRow = addRow(addRow(t));
    expect(withRow.rows.map((r) => r.id)).toEqual(['r1', 'r2', 'r3', 'r4']);
    expect(addRow({ ...t, rows: [{ id: 'r3' }] }).rows.map((r) => r.id)).toEqual(['r3', 'r2']);
    expect(moveRow(t, 1, -1).rows.map((r) => r.id)).toEqual(['r2', 'r1']);
    expect(moveRow(t, 0, -1)).toBe(t);
    expect(deleteRow(t, 0).rows.map((r) => r.id)).toEqual(['r2']);
    expect(t.rows).toHaveLength(2);
  });

  it('types output cells by their column and clears a cell emptied', () => {
    let t = setCell(table(), 1, 'output', 'limit', '250');
    expect(t.rows[1].outputs).toEqual({ risk: 'minor', limit: 250 });
    t = setCell(t, 1, 'output', 'risk', '42');
    expect(t.rows[1].outputs!.risk).toBe('42');
    t = setCell(t, 0, 'input', 'age', '');
    expect(t.rows[0].inputConditions).toEqual({});
    expect(coerce('12x', 'number')).toBe('12x');
    expect(coerce('true', 'boolean')).toBe(true);
    expect(coerce('{"a":1}', undefined)).toEqual({ a: 1 });
  });

  it('adds a column once and deleting one removes its cells from every row', () => {
    const t = addColumn(table(), 'input', 'country');
    expect(addColumn(t, 'input', 'country')).toBe(t);
    const without = deleteColumn(table(), 'output', 'limit');
    expect(without.outputColumns.map((c) => c.name)).toEqual(['risk']);
    expect(without.rows[0].outputs).toEqual({ risk: 'low' });
    expect(toBody(without).rows[0]).toEqual({
      id: 'r1',
      priority: undefined,
      inputConditions: { age: '>= 18' },
      outputs: { risk: 'low' },
    });
  });
});

describe('side-by-side diff rows', () => {
  it('aligns unchanged lines and marks removed and added ones', () => {
    const rows = diffLines(['{', '  "a": 1,', '  "b": 2', '}'], ['{', '  "a": 1,', '  "b": 3', '}']);
    expect(rows.map((r) => r.kind)).toEqual(['same', 'same', 'del', 'add', 'same']);
    expect(rows[2].left).toBe('  "b": 2');
    expect(rows[3].right).toBe('  "b": 3');
    expect(pairRows(rows)).toEqual([
      { left: '{', right: '{', kind: 'same' },
      { left: '  "a": 1,', right: '  "a": 1,', kind: 'same' },
      { left: '  "b": 2', right: '  "b": 3', kind: 'change' },
      { left: '}', right: '}', kind: 'same' },
    ]);
    expect(pairRows(diffLines(['a', 'b'], ['a'])).map((r) => r.kind)).toEqual(['same', 'del']);
  });
});
