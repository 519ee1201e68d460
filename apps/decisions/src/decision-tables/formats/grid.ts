/**
 * The spreadsheet layout shared by XLSX and CSV: metadata lines, a header row, one line per rule.
 *
 *   #name         | Loan risk
 *   #description  | …
 *   #hitPolicy    | First
 *   #default      | <output column> | <JSON value>      (one per output column with a default)
 *   #outputValues | <output column> | <JSON array>      (priority lists)
 *   id | priority | in:age:number:required | in:country:string | out:risk:string
 *   r1 | 1        | < 18                   | -                 | minor
 *
 *   #outputExpression | <row id> | <output column> | <FEEL>   (an output the row computes)
 *
 * Input cells are FEEL unary tests; output cells are plain values for string/number/boolean
 * columns and JSON text for the others. Text cells that a spreadsheet would run as a formula are
 * escaped with a leading `'` on export (`escapeFormula`) and read back without it.
 *
 * Reading: a native spreadsheet date, time or number (XLSX) is read as its FEEL value: in a condition a
 * FEEL literal of the column's type (`date("2024-01-31")`, a plain decimal number), in an output its ISO
 * text. Column names are user text: rows are read and written as own properties only.
 */
import { Decimal } from '@arbiter/feel';
import { own, setOwn } from '@arbiter/rule-engine';
import { StoredDefinition } from '../application/table-model';
import { feelString } from './dmn';

export type Cell = string | number | boolean | null;
/** What a spreadsheet cell can hold when read: XLSX adds native dates and times. */
export type InCell = Cell | Date;

/**
 * OWASP's rule against formula injection: a text cell starting with `=`, `+`, `-`, `@`, a tab or a
 * carriage return is prefixed with `'` so that a spreadsheet shows it as text; so is one that already
 * starts with `'` followed by those, so that reading (`unescapeFormula`) removes exactly what was added.
 */
const FORMULA_START = /^'*[=+\-@\t\r]/;
export function escapeFormula(text: string): string {
  return FORMULA_START.test(text) ? `'${text}` : text;
}
export function unescapeFormula(text: string): string {
  return text.startsWith("'") && FORMULA_START.test(text) ? text.slice(1) : text;
}
/** A cell as CSV and XLSX write it: numbers and booleans as they are, text escaped. */
export function exportCell(c: Cell): Cell {
  return typeof c === 'string' ? escapeFormula(c) : c;
}

export function toGrid(def: StoredDefinition): Cell[][] {
  const grid: Cell[][] = [
    ['#name', def.name],
    ['#description', def.description ?? ''],
    ['#hitPolicy', def.hitPolicy],
  ];
  for (const o of def.outputColumns) {
    if (o.defaultValue !== undefined) grid.push(['#default', o.name, JSON.stringify(o.defaultValue)]);
    if (o.outputValues) grid.push(['#outputValues', o.name, JSON.stringify(o.outputValues)]);
  }
  for (const i of def.inputColumns) if (i.expression) grid.push(['#expression', i.name, i.expression]);
  for (const row of def.rows)
    for (const [column, expression] of Object.entries(row.outputExpressions ?? {}))
      grid.push(['#outputExpression', row.id, column, expression]);
  grid.push([
    'id',
    'priority',
    ...def.inputColumns.map((i) => `in:${i.name}:${i.type ?? 'any'}${i.required ? ':required' : ''}`),
    ...def.outputColumns.map((o) => `out:${o.name}:${o.type ?? 'any'}`),
  ]);
  for (const row of def.rows) {
    grid.push([
      row.id,
      row.priority,
      ...def.inputColumns.map((i) => String(own(row.inputConditions, i.name) ?? '-')),
      ...def.outputColumns.map((o) => encodeOutput(own(row.outputs, o.name), o.type)),
    ]);
  }
  return grid;
}

function encodeOutput(v: unknown, type?: string): Cell {
  if (v === undefined || v === null) return null;
  if (
    (type === 'string' && typeof v === 'string') ||
    (type === 'number' && typeof v === 'number') ||
    (type === 'boolean' && typeof v === 'boolean')
  )
    return v;
  return JSON.stringify(v);
}

/** A FEEL number literal of a spreadsheet number (FEEL has no exponent notation). */
function feelNumber(n: number): string {
  const s = String(n);
  return /e/i.test(s) ? new Decimal(s).toFixed() : s;
}

const pad = (n: number, w = 2) => String(n).padStart(w, '0');

/**
 * A native spreadsheet date or time as ISO text of the column's type. The cell's UTC fields are its
 * wall-clock fields (that is how XLSX readers build them); a time-only cell is a time on 1899-12-30,
 * day zero of spreadsheets. Without a temporal column type: a date when there is no time of day, a
 * time on day zero, else a date and time.
 */
function isoOf(d: Date, type: string): { kind: 'date' | 'time' | 'dateTime'; text: string } {
  const date = `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`;
  const ms = d.getUTCMilliseconds();
  const time = `${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}${ms ? `.${pad(ms, 3)}` : ''}`;
  const midnight = d.getUTCHours() === 0 && d.getUTCMinutes() === 0 && d.getUTCSeconds() === 0 && ms === 0;
  const dayZero = date === '1899-12-30' || date === '1899-12-31';
  const kind =
    type === 'date' || type === 'time' || type === 'dateTime'
      ? type
      : midnight
        ? 'date'
        : dayZero
          ? 'time'
          : 'dateTime';
  return { kind, text: kind === 'date' ? date : kind === 'time' ? time : `${date}T${time}` };
}

const FEEL_TEMPORAL = { date: 'date', time: 'time', dateTime: 'date and time' } as const;

/** An input cell as the FEEL unary test it stands for. */
function conditionOf(v: InCell | undefined, type: string): string {
  if (v === null || v === undefined) return '';
  if (v instanceof Date) {
    const { kind, text } = isoOf(v, type);
    return `${FEEL_TEMPORAL[kind]}(${feelString(text)})`;
  }
  if (typeof v === 'number') return feelNumber(v);
  return unescapeFormula(String(v)).trim();
}

function decodeOutput(v: InCell | undefined, type: string): unknown {
  if (v === null || v === undefined || v === '') return null;
  if (v instanceof Date) return isoOf(v, type).text;
  if (typeof v === 'string') v = unescapeFormula(v);
  if (type === 'string') return String(v);
  if (type === 'number') return typeof v === 'number' ? v : Number(v);
  if (type === 'boolean') return typeof v === 'boolean' ? v : String(v).toLowerCase() === 'true';
  if (typeof v !== 'string') return v;
  try {
    return JSON.parse(v);
  } catch {
    return v;
  }
}

/** Reads a grid back into a definition; throws Error with a line number on bad layout. */
export function fromGrid(grid: InCell[][]): Record<string, unknown> {
  const meta = new Map<string, string>();
  const defaults = new Map<string, unknown>();
  const priorities = new Map<string, unknown>();
  const expressions = new Map<string, string>();
  /** row id → output column → FEEL */
  const outputExpressions = new Map<string, Record<string, string>>();
  let line = 0;
  const text = (c: InCell | undefined) =>
    c === null || c === undefined
      ? ''
      : c instanceof Date
        ? isoOf(c, 'any').text
        : typeof c === 'string'
          ? unescapeFormula(c)
          : String(c);
  for (; line < grid.length; line++) {
    const first = text(grid[line][0]);
    if (!first.startsWith('#')) break;
    const key = first.slice(1);
    const json = (s: string) => {
      try {
        return JSON.parse(s);
      } catch {
        throw new Error(`line ${line + 1}: ${key} needs a JSON value`);
      }
    };
    if (key === 'default') defaults.set(text(grid[line][1]), json(text(grid[line][2])));
    else if (key === 'outputValues') priorities.set(text(grid[line][1]), json(text(grid[line][2])));
    else if (key === 'expression') expressions.set(text(grid[line][1]), text(grid[line][2]));
    else if (key === 'outputExpression') {
      const rowId = text(grid[line][1]);
      const forRow = outputExpressions.get(rowId) ?? {};
      setOwn(forRow, text(grid[line][2]), text(grid[line][3]));
      outputExpressions.set(rowId, forRow);
    } else meta.set(key, text(grid[line][1]));
  }
  const header = (grid[line] ?? []).map(text);
  if (header[0] !== 'id' || header[1] !== 'priority')
    throw new Error(`line ${line + 1}: expected the header row 'id, priority, in:…, out:…'`);
  const columns = header.slice(2).map((h, k) => {
    const [dir, name, type, flag] = h.split(':');
    if ((dir !== 'in' && dir !== 'out') || !name)
      throw new Error(`line ${line + 1}: bad column header '${h}' (column ${k + 3})`);
    return { dir, name, type: type || 'any', required: flag === 'required' };
  });
  const inputs = columns.filter((c) => c.dir === 'in');
  const outputs = columns.filter((c) => c.dir === 'out');
  const rows = grid
    .slice(line + 1)
    .filter((r) => r.some((c) => text(c) !== ''))
    .map((r) => {
      const inputConditions: Record<string, string> = {};
      const outs: Record<string, unknown> = {};
      columns.forEach((c, k) => {
        const cell = r[k + 2];
        if (c.dir === 'in') {
          const t = conditionOf(cell, c.type);
          if (t && t !== '-') setOwn(inputConditions, c.name, t);
        } else {
          const v = decodeOutput(cell, c.type);
          if (v !== null) setOwn(outs, c.name, v);
        }
      });
      const priority = Number(text(r[1]) || 0);
      const id = text(r[0]) || undefined;
      const computed = id === undefined ? undefined : outputExpressions.get(id);
      return {
        id,
        priority: Number.isFinite(priority) ? priority : 0,
        inputConditions,
        outputs: outs,
        ...(computed ? { outputExpressions: computed } : {}),
      };
    });
  return {
    name: meta.get('name') ?? '',
    ...(meta.get('description') ? { description: meta.get('description') } : {}),
    hitPolicy: meta.get('hitPolicy') ?? 'First',
    inputColumns: inputs.map((c) => ({
      name: c.name,
      type: c.type,
      ...(c.required ? { required: true } : {}),
      ...(expressions.has(c.name) ? { expression: expressions.get(c.name) } : {}),
    })),
    outputColumns: outputs.map((c) => ({
      name: c.name,
      type: c.type,
      ...(defaults.has(c.name) ? { defaultValue: defaults.get(c.name) } : {}),
      ...(priorities.has(c.name) ? { outputValues: priorities.get(c.name) } : {}),
    })),
    rows,
  };
}
