import { StoredDefinition } from '../application/table-model';
import { fromCsv, parseCsv, toCsv } from './csv';
import { feelLiteral, fromDmn, toDmn } from './dmn';
import { fromGrid, toGrid } from './grid';
import { fromXlsx, toXlsx } from './xlsx';

const table: StoredDefinition = {
  name: 'Loan risk',
  description: 'risk, by "age"',
  hitPolicy: 'First',
  inputColumns: [
    { name: 'age', type: 'number', required: true },
    { name: 'country', type: 'string' },
    { name: 'monthly', type: 'number', expression: 'income / 12' },
  ],
  outputColumns: [
    { name: 'risk', type: 'string', defaultValue: 'unknown' },
    { name: 'limit', type: 'number' },
    { name: 'tags', type: 'any' },
  ],
  rows: [
    {
      id: 'r1',
      priority: 1,
      inputConditions: { age: '< 18' },
      outputs: { risk: 'minor', limit: 0, tags: ['young'] },
    },
    {
      id: 'r2',
      priority: 2,
      inputConditions: { age: '[18..65]', country: '"NL","BE"' },
      outputs: { risk: 'low, with comma', limit: 1000 },
    },
  ],
};

/** What an import gives back for `table` (required flags and computed columns kept by grid formats). */
const imported = { ...table, rows: table.rows.map((r) => ({ ...r })) };

describe('grid layout (XLSX and CSV)', () => {
  it('writes metadata lines, a typed header and one line per row', () => {
    const grid = toGrid(table);
    expect(grid.slice(0, 3)).toEqual([
      ['#name', 'Loan risk'],
      ['#description', 'risk, by "age"'],
      ['#hitPolicy', 'First'],
    ]);
    expect(grid).toContainEqual(['#default', 'risk', '"unknown"']);
    expect(grid).toContainEqual(['#expression', 'monthly', 'income / 12']);
    expect(grid).toContainEqual([
      'id',
      'priority',
      'in:age:number:required',
      'in:country:string',
      'in:monthly:number',
      'out:risk:string',
      'out:limit:number',
      'out:tags:any',
    ]);
    expect(grid.at(-2)).toEqual(['r1', 1, '< 18', '-', '-', 'minor', 0, '["young"]']);
  });

  it('reads back what it wrote', () => {
    expect(fromGrid(toGrid(table))).toEqual(imported);
  });

  it('names the line of a bad header', () => {
    expect(() => fromGrid([['#name', 'x'], ['nope']])).toThrow(/line 2: expected the header row/);
    expect(() => fromGrid([['id', 'priority', 'sideways:x']])).toThrow(/line 1: bad column header/);
    expect(() => fromGrid([['#default', 'x', '{not json']])).toThrow(/line 1: default needs a JSON value/);
  });
});

describe('CSV', () => {
  it('round-trips a table, quoting commas, quotes and padded text', () => {
    const csv = toCsv(table);
    expect(csv).toContain('"risk, by ""age"""');
    expect(csv.endsWith('\r\n')).toBe(true);
    expect(fromCsv(csv)).toEqual(imported);
  });

  it('parses RFC 4180 (quoted fields, doubled quotes, CRLF or LF) and skips a BOM', () => {
    expect(parseCsv('a,"b,c"\n"d""e",f\r\n')).toEqual([
      ['a', 'b,c'],
      ['d"e', 'f'],
    ]);
    expect(fromCsv('\uFEFF#name,T\nid,priority,in:x:number\n')).toMatchObject({ name: 'T', rows: [] });
    expect(() => parseCsv('"open')).toThrow(/unterminated/);
  });
});

describe('XLSX', () => {
  it('round-trips a table through one worksheet', async () => {
    expect(await fromXlsx(await toXlsx(table))).toEqual([imported]);
  });
});

describe('DMN 1.3', () => {
  it('writes FEEL literals for JSON values', () => {
    expect(feelLiteral(null)).toBe('null');
    expect(feelLiteral('a "b"')).toBe('"a \\"b\\""');
    expect(feelLiteral([1, true, { k: 'v' }])).toBe('[1, true, {"k": "v"}]');
  });

  it('exports one decision table in the DMN 1.3 namespace and imports it back', () => {
    const xml = toDmn(table, 'table-1');
    expect(xml).toContain('xmlns="https://www.omg.org/spec/DMN/20191111/MODEL/"');
    expect(xml).toContain('hitPolicy="FIRST"');
    const [back] = fromDmn(xml);
    expect(back).toMatchObject({ name: 'Loan risk', hitPolicy: 'First' });
    expect(back.rows).toEqual([
      {
        id: 'r1',
        priority: 1,
        inputConditions: { age: '< 18' },
        outputs: { risk: 'minor', limit: 0, tags: ['young'] },
      },
      {
        id: 'r2',
        priority: 2,
        inputConditions: { age: '[18..65]', country: '"NL","BE"' },
        outputs: { risk: 'low, with comma', limit: 1000 },
      },
    ]);
    // `required` and the exact column name travel in our extension elements; a computed column keeps its expression
    expect(back.inputColumns).toEqual([
      { name: 'age', type: 'number', required: true },
      { name: 'country', type: 'string' },
      { name: 'monthly', type: 'number', expression: 'income / 12' },
    ]);
    expect(back.outputColumns).toContainEqual({ name: 'risk', type: 'string', defaultValue: 'unknown' });
    expect(back.description).toBe('risk, by "age"');
  });

  it('reads no table from a file without a decision table (the import refuses it: IMPORT_EMPTY)', () => {
    expect(
      fromDmn(
        `<definitions xmlns="https://www.omg.org/spec/DMN/20191111/MODEL/" id="d" name="n" namespace="x"/>`,
      ),
    ).toEqual([]);
  });
});
