/** A decision table as the API stores it (spec 2, "Decision table"). Plain JSON. */
export interface DecisionTableDefinition {
  name: string;
  description?: string;
  hitPolicy: string;
  inputColumns: InputColumn[];
  outputColumns: OutputColumn[];
  rows: TableRow[];
}

export interface InputColumn {
  name: string;
  /** `string`, `number`, `boolean`, `date`, `time`, `dateTime`, `duration`, `any` (default `any`) */
  type?: string;
  required?: boolean;
  /** optional FEEL expression computing the column's value from the input (default: the input named `name`) */
  expression?: string;
}

export interface OutputColumn {
  name: string;
  type?: string;
  /** value when no row matches (DMN default output entry) */
  defaultValue?: unknown;
  /** priority order for `Priority` / `OutputOrder`: earlier values win (DMN output values list) */
  outputValues?: unknown[];
}

export interface TableRow {
  id?: string;
  priority?: number;
  /** input column name → FEEL unary test (`-` or missing: any value) */
  inputConditions: Record<string, string>;
  /** output column name → value */
  outputs: Record<string, unknown>;
  /**
   * output column name → FEEL expression computing the output when the row matches (DMN's non-constant
   * output entries, `amount * 0.1`). It sees the input columns by name and the input facts; a column has
   * a value in `outputs` or an expression here, not both.
   */
  outputExpressions?: Record<string, string>;
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
] as const;
export type HitPolicy = (typeof HIT_POLICIES)[number];

export const COLUMN_TYPES = [
  'string',
  'number',
  'boolean',
  'date',
  'time',
  'dateTime',
  'duration',
  'yearMonthDuration',
  'any',
] as const;
export type ColumnType = (typeof COLUMN_TYPES)[number];

export interface OutputRow {
  rowId: string;
  outputs: Record<string, unknown>;
}

export interface EvaluationResult {
  matchedRows: string[];
  outputRows: OutputRow[];
  /** single-hit policies: one value per output column; multi-hit: a list per column; aggregations: one value per column */
  outputValues: Record<string, unknown> | null;
}

export interface TableProblem {
  rowId: string | null;
  column: string | null;
  message: string;
}
