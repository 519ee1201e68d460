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
 * Input cells are FEEL unary tests; output cells are plain values for string/number/boolean
 * columns and JSON text for the others.
 */
import { StoredDefinition } from '../application/table-model';

export type Cell = string | number | boolean | null;

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
      ...def.inputColumns.map((i) => row.inputConditions[i.name] ?? '-'),
      ...def.outputColumns.map((o) => encodeOutput(row.outputs[o.name], o.type)),
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

function decodeOutput(v: Cell | undefined, type: string): unknown {
  if (v === null || v === undefined || v === '') return null;
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
export function fromGrid(grid: Cell[][]): Record<string, unknown> {
  const meta: Record<string, string> = {};
  const defaults = new Map<string, unknown>();
  const priorities = new Map<string, unknown>();
  const expressions = new Map<string, string>();
  let line = 0;
  const text = (c: Cell | undefined) => (c === null || c === undefined ? '' : String(c));
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
    else meta[key] = text(grid[line][1]);
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
          const t = text(cell).trim();
          if (t && t !== '-') inputConditions[c.name] = t;
        } else {
          const v = decodeOutput(cell, c.type);
          if (v !== null) outs[c.name] = v;
        }
      });
      const priority = Number(text(r[1]) || 0);
      return {
        id: text(r[0]) || undefined,
        priority: Number.isFinite(priority) ? priority : 0,
        inputConditions,
        outputs: outs,
      };
    });
  return {
    name: meta.name ?? '',
    ...(meta.description ? { description: meta.description } : {}),
    hitPolicy: meta.hitPolicy ?? 'First',
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
