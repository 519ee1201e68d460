/**
 * Runs scenarios through the compiled decision table (the runtime's engine, @arbiter/rule-engine),
 * compares each result with the scenario's expected behaviour, names what went wrong (which row, which
 * condition, which input crossed which boundary) and measures coverage: rows hit, and both sides (true
 * and false) of every condition.
 */
import { EvaluationError, type EvaluationResult } from '@arbiter/rule-engine';
import { canonicalJson, sameJson } from './canonical';
import { TableModel, buildTableModel, cellAccepts, coerceFor, isTableModel } from './table-model';
import { ExpectedBehavior, ScenarioStatus } from './types';

export interface RunnableScenario {
  id?: string;
  scenarioName?: string;
  inputFacts: Record<string, unknown>;
  expectedBehavior: ExpectedBehavior;
}

export interface FailureFinding {
  rowId: string;
  column: string | null;
  /** the input value involved */
  value?: unknown;
  /** the condition's text in the table run */
  cell?: string;
  message: string;
}

export interface ScenarioRunResult {
  id?: string;
  status: ScenarioStatus;
  /** the evaluation completed (or refused with the expected error) */
  isSuccess: boolean;
  matchesExpectation: boolean;
  outputFacts: Record<string, unknown> | null;
  matchedRows: string[];
  errors: string[];
  /** milliseconds */
  duration: number;
  analysis: FailureFinding[];
}

export interface TableCoverage {
  rows: { total: number; hit: number; percent: number; unhit: string[] };
  /** conditions other than `-`: sides seen true and false */
  conditions: {
    total: number;
    bothSides: number;
    trueOnly: number;
    falseOnly: number;
    neither: number;
    percent: number;
  };
  /** each condition's sides (row, column, cell, seenTrue, seenFalse) for the ones not covered both ways */
  uncovered: { rowId: string; column: string; cell: string; seenTrue: boolean; seenFalse: boolean }[];
}

export interface TableRunReport {
  results: ScenarioRunResult[];
  coverage: TableCoverage;
  passed: number;
  failed: number;
  errored: number;
  /** milliseconds */
  duration: number;
}

const pct = (part: number, total: number) => (total === 0 ? 100 : Math.round((part / total) * 10000) / 100);

type Outcome = { result: EvaluationResult | null; errorCode: string | null; message: string | null };

function evaluate(model: TableModel, facts: Record<string, unknown>): Outcome {
  try {
    return { result: model.compiled.evaluate(facts), errorCode: null, message: null };
  } catch (e) {
    if (e instanceof EvaluationError) return { result: null, errorCode: e.code, message: e.message };
    return { result: null, errorCode: 'UNEXPECTED', message: e instanceof Error ? e.message : String(e) };
  }
}

/** Does an outcome match the expectation? (the same check the mutation run uses) */
export function outcomeMatches(outcome: Outcome, expected: ExpectedBehavior): boolean {
  if (expected.errorCode) return outcome.errorCode === expected.errorCode;
  if (!outcome.result) return false;
  return (
    sameJson(outcome.result.matchedRows, expected.matchedRows) &&
    sameJson(outcome.result.outputValues, expected.outputs)
  );
}

export function evaluateOutcome(model: TableModel, facts: Record<string, unknown>): Outcome {
  return evaluate(model, facts);
}

/** Why the table run disagrees with the expectation: conditions of the expected and of the extra rows. */
export function analyseFailure(
  model: TableModel,
  facts: Record<string, unknown>,
  expected: ExpectedBehavior,
  actualRows: string[],
): FailureFinding[] {
  const findings: FailureFinding[] = [];
  const index = new Map(model.rowIds.map((id, i) => [id, i]));
  const describe = (rowId: string, wantMatch: boolean) => {
    const r = index.get(rowId);
    if (r === undefined) {
      findings.push({ rowId, column: null, message: `row ${rowId} is not in the table run` });
      return;
    }
    model.columns.forEach((col, c) => {
      const cell = model.cells[r][c];
      if (!cell.test) return;
      const verdict = cellAccepts(model, r, c, facts);
      if (wantMatch && verdict !== true)
        findings.push({
          rowId,
          column: col.name,
          value: facts[col.name],
          cell: cell.text,
          message: `${col.name} = ${canonicalJson(facts[col.name])} is ${verdict === null ? 'neither inside nor outside' : 'outside'} '${cell.text}' of ${rowId}, which had to match`,
        });
      if (!wantMatch && verdict === true)
        findings.push({
          rowId,
          column: col.name,
          value: facts[col.name],
          cell: cell.text,
          message: `${col.name} = ${canonicalJson(facts[col.name])} is inside '${cell.text}' of ${rowId}, which must not match`,
        });
    });
    if (!wantMatch && !findings.some((f) => f.rowId === rowId))
      findings.push({ rowId, column: null, message: `${rowId} matched although it was not expected to` });
  };
  for (const id of expected.matchedRows) if (!actualRows.includes(id)) describe(id, true);
  for (const id of actualRows) if (!expected.matchedRows.includes(id)) describe(id, false);
  if (findings.length === 0 && expected.matchedRows.length)
    findings.push({
      rowId: expected.matchedRows[0],
      column: null,
      message: `${expected.matchedRows.join(', ')} matched as expected but the outputs differ`,
    });
  return findings;
}

/** Which conditions the scenarios take to each side; cells reading only their own column are tested once per distinct value. */
export function measureCoverage(
  model: TableModel,
  factsList: Record<string, unknown>[],
  hitRows: Set<string>,
): TableCoverage {
  const { columns, cells, rowIds } = model;
  const distinct = columns.map((col) => {
    const m = new Map<string, unknown>();
    for (const f of factsList) {
      const key = canonicalJson(f[col.name]);
      if (!m.has(key)) m.set(key, f[col.name]);
    }
    return [...m.values()];
  });
  const coerced = distinct.map((values, c) =>
    values.map((v) => coerceFor(columns[c], v)).filter((v) => v !== undefined),
  );
  let total = 0;
  let both = 0;
  let trueOnly = 0;
  let falseOnly = 0;
  let neither = 0;
  const uncovered: TableCoverage['uncovered'] = [];
  for (let r = 0; r < cells.length; r++)
    for (let c = 0; c < columns.length; c++) {
      const cell = cells[r][c];
      if (!cell.test) continue;
      total++;
      let t = false;
      let f = false;
      if (cell.usesNames) {
        for (const facts of factsList) {
          const v = cellAccepts(model, r, c, facts);
          if (v === true) t = true;
          else if (v === false) f = true;
          if (t && f) break;
        }
      } else {
        for (const value of coerced[c]) {
          const v = cell.test.test(value, null);
          if (v === true) t = true;
          else if (v === false) f = true;
          if (t && f) break;
        }
      }
      if (t && f) both++;
      else {
        if (t) trueOnly++;
        else if (f) falseOnly++;
        else neither++;
        if (uncovered.length < 200)
          uncovered.push({
            rowId: rowIds[r],
            column: columns[c].name,
            cell: cell.text,
            seenTrue: t,
            seenFalse: f,
          });
      }
    }
  const unhit = rowIds.filter((id) => !hitRows.has(id));
  return {
    rows: {
      total: rowIds.length,
      hit: rowIds.length - unhit.length,
      percent: pct(rowIds.length - unhit.length, rowIds.length),
      unhit,
    },
    conditions: {
      total,
      bothSides: both,
      trueOnly,
      falseOnly,
      neither,
      percent: pct(both * 2 + trueOnly + falseOnly, total * 2),
    },
    uncovered,
  };
}

export interface RunOptions {
  now?: () => number;
}

/** Runs the scenarios against a table definition (the candidate version) and reports results and coverage. */
export function runTableScenarios(
  definition: unknown | TableModel,
  scenarios: RunnableScenario[],
  options: RunOptions = {},
): TableRunReport {
  const now = options.now ?? (() => performance.now());
  const started = now();
  const model = isTableModel(definition) ? definition : buildTableModel(definition);
  const hit = new Set<string>();
  let passed = 0;
  let failed = 0;
  let errored = 0;
  const results = scenarios.map((s): ScenarioRunResult => {
    const t0 = now();
    const outcome = evaluate(model, s.inputFacts);
    const duration = Math.round((now() - t0) * 1000) / 1000;
    const rows = outcome.result?.matchedRows ?? [];
    for (const id of rows) hit.add(id);
    const matches = outcomeMatches(outcome, s.expectedBehavior);
    const isSuccess = outcome.errorCode === null || outcome.errorCode === s.expectedBehavior.errorCode;
    const status: ScenarioStatus = matches ? 'Passed' : isSuccess ? 'Failed' : 'Error';
    if (status === 'Passed') passed++;
    else if (status === 'Failed') failed++;
    else errored++;
    const errors = outcome.message ? [`${outcome.errorCode}: ${outcome.message}`] : [];
    if (!matches && s.expectedBehavior.errorCode && outcome.errorCode !== s.expectedBehavior.errorCode)
      errors.push(`expected ${s.expectedBehavior.errorCode}, got ${outcome.errorCode ?? 'a result'}`);
    return {
      ...(s.id ? { id: s.id } : {}),
      status,
      isSuccess,
      matchesExpectation: matches,
      outputFacts: outcome.result?.outputValues ?? null,
      matchedRows: rows,
      errors,
      duration,
      analysis: matches ? [] : analyseFailure(model, s.inputFacts, s.expectedBehavior, rows),
    };
  });
  const coverage = measureCoverage(
    model,
    scenarios.map((s) => s.inputFacts),
    hit,
  );
  return {
    results,
    coverage,
    passed,
    failed,
    errored,
    duration: Math.round((now() - started) * 1000) / 1000,
  };
}
