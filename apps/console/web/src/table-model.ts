/** Pure editing operations of the decision-table grid (each returns a new table). */
export interface Column {
  name: string;
  type?: string;
  required?: boolean;
  expression?: string;
  defaultValue?: unknown;
  outputValues?: unknown[];
}
export interface Row {
  id: string;
  priority?: number;
  inputConditions?: Record<string, string>;
  outputs?: Record<string, unknown>;
  outputExpressions?: Record<string, string>;
}
export interface TableDefinition {
  name: string;
  description?: string;
  hitPolicy: string;
  inputColumns: Column[];
  outputColumns: Column[];
  rows: Row[];
}

export const HIT_POLICIES = [
  'Unique',
  'Any',
  'First',
  'All',
  'Collect',
  'RuleOrder',
  'OutputOrder',
  'Priority',
  'CollectSum',
  'CollectMin',
  'CollectMax',
  'CollectCount',
];

/** The create/update body: only the fields the decisions service accepts. */
export function toBody(t: TableDefinition) {
  return {
    name: t.name,
    description: t.description ?? undefined,
    hitPolicy: t.hitPolicy,
    inputColumns: t.inputColumns,
    outputColumns: t.outputColumns,
    rows: t.rows.map((r) => ({
      id: r.id,
      priority: r.priority,
      inputConditions: r.inputConditions ?? {},
      outputs: r.outputs ?? {},
      ...(r.outputExpressions && Object.keys(r.outputExpressions).length
        ? { outputExpressions: r.outputExpressions }
        : {}),
    })),
  };
}

/** A typed value from a cell's text, by the column's type. */
export function coerce(text: string, type: string | undefined): unknown {
  const t = (type ?? '').toLowerCase();
  if (t === 'number' || t === 'integer' || t === 'double') {
    const n = Number(text);
    return text.trim() !== '' && Number.isFinite(n) ? n : text;
  }
  if (t === 'boolean') return text === 'true' ? true : text === 'false' ? false : text;
  if (t === '' || t === 'any') {
    try {
      return JSON.parse(text);
    } catch {
      return text;
    }
  }
  return text;
}

export function display(value: unknown): string {
  if (value === undefined || value === null) return '';
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** The first `r<n>` (n from the row count + 1) no row uses. */
export function newRowId(t: TableDefinition): string {
  const ids = new Set(t.rows.map((r) => r.id));
  let n = t.rows.length + 1;
  while (ids.has(`r${n}`)) n++;
  return `r${n}`;
}

export function addRow(t: TableDefinition): TableDefinition {
  return { ...t, rows: [...t.rows, { id: newRowId(t), inputConditions: {}, outputs: {} }] };
}

export function deleteRow(t: TableDefinition, index: number): TableDefinition {
  return { ...t, rows: t.rows.filter((_, i) => i !== index) };
}

export function moveRow(t: TableDefinition, index: number, by: number): TableDefinition {
  const to = index + by;
  if (to < 0 || to >= t.rows.length) return t;
  const rows = [...t.rows];
  [rows[index], rows[to]] = [rows[to], rows[index]];
  return { ...t, rows };
}

export function setCell(
  t: TableDefinition,
  index: number,
  side: 'input' | 'output',
  column: string,
  text: string,
): TableDefinition {
  const rows = t.rows.map((r, i) => {
    if (i !== index) return r;
    if (side === 'input') {
      const inputConditions = { ...(r.inputConditions ?? {}) };
      if (text === '') delete inputConditions[column];
      else inputConditions[column] = text;
      return { ...r, inputConditions };
    }
    const type = t.outputColumns.find((c) => c.name === column)?.type;
    const outputs = { ...(r.outputs ?? {}) };
    if (text === '') delete outputs[column];
    else outputs[column] = coerce(text, type);
    return { ...r, outputs };
  });
  return { ...t, rows };
}

export function addColumn(t: TableDefinition, side: 'input' | 'output', name: string): TableDefinition {
  const key = side === 'input' ? 'inputColumns' : 'outputColumns';
  if (t[key].some((c) => c.name === name)) return t;
  return { ...t, [key]: [...t[key], { name, type: side === 'input' ? 'number' : 'string' }] };
}

export function deleteColumn(t: TableDefinition, side: 'input' | 'output', name: string): TableDefinition {
  const key = side === 'input' ? 'inputColumns' : 'outputColumns';
  const rows = t.rows.map((r) => {
    const copy = {
      ...r,
      inputConditions: { ...(r.inputConditions ?? {}) },
      outputs: { ...(r.outputs ?? {}) },
    };
    if (side === 'input') delete copy.inputConditions[name];
    else delete copy.outputs[name];
    return copy;
  });
  return { ...t, [key]: t[key].filter((c) => c.name !== name), rows };
}
