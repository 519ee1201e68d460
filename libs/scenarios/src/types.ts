/** Scenario records (spec 2, "Scenario records"): what the generator produces and the runner fills in. */

export const SCENARIO_SCOPES = ['Rule', 'Workflow', 'CrossRule'] as const;
export type ScenarioScope = (typeof SCENARIO_SCOPES)[number];

export const SCENARIO_STATUSES = ['Pending', 'Running', 'Passed', 'Failed', 'Error', 'Skipped'] as const;
export type ScenarioStatus = (typeof SCENARIO_STATUSES)[number];

/** How a scenario was chosen. */
export const SCENARIO_TYPES = [
  /** an input every condition of one row accepts */
  'RowMatch',
  /** one condition of a row moved to a boundary value (just below, on, just above), the others kept true */
  'Boundary',
  /** rows with several conditions: one condition made false while the others stay true (MC/DC pair) */
  'McDc',
  /** a representative of a class no row lists (an unlisted string, the other boolean) */
  'EquivalenceClass',
  'MissingInput',
  'NullInput',
  /** a combination across rows chosen by pairwise (all-pairs) coverage */
  'Pairwise',
  /** proposed by the AI backend */
  'AiProposed',
  /** written by a person */
  'Manual',
] as const;
export type ScenarioType = (typeof SCENARIO_TYPES)[number];

/** What must happen: which rows match and what the table outputs (or which evaluation error it raises). */
export interface ExpectedBehavior {
  /** the row ids the evaluation reports as matched, in the engine's order */
  matchedRows: string[];
  /** the table's output values (single hit: one value per column; multi hit: lists; null: no match, no default) */
  outputs: Record<string, unknown> | null;
  /** evaluation error code expected instead of a result (for example MISSING_REQUIRED_INPUT) */
  errorCode?: string | null;
  /** the row this scenario was built to exercise */
  targetRowId?: string | null;
  /** human-readable why */
  description: string;
}

/** Where a generated scenario comes from: row, column, cell text and the probe's meaning. */
export interface ScenarioOrigin {
  rowId?: string;
  column?: string;
  cell?: string;
  /** `below`, `on`, `above`, `inside`, `listed`, `unlisted`, `missing`, `null`, `pairwise`, ... */
  probe?: string;
}

export interface GeneratedScenario {
  scenarioName: string;
  type: ScenarioType;
  scope: ScenarioScope;
  inputFacts: Record<string, unknown>;
  expectedBehavior: ExpectedBehavior;
  /** canonical hash of the input facts (duplicates removed by it) */
  hash: string;
  origin: ScenarioOrigin;
}

export interface GeneratedPlan {
  seedRuleCode: string;
  scope: ScenarioScope;
  seed: number;
  scenarios: GeneratedScenario[];
  aiModelUsed: string | null;
  /** milliseconds */
  generationDuration: number;
  /** candidates built before duplicates were removed */
  candidates: number;
  duplicatesRemoved: number;
}
