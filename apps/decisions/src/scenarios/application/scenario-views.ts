import type { FailureFinding } from '@arbiter/scenarios';
import type { CiRunResult } from './scenario-runs.service';
import {
  ScenarioEntity,
  ScenarioPlanEntity,
  ScenarioResultEntity,
  ScenarioRunEntity,
} from '../persistence/entities';

/** What the routes answer: records of spec 2 "Scenario records", camelCase. */

export interface ScenarioResultView {
  runId: string;
  scenarioId: string;
  status: string;
  isSuccess: boolean;
  matchesExpectation: boolean;
  outputFacts: Record<string, unknown> | null;
  matchedRows: string[];
  errors: string[];
  /** milliseconds */
  duration: number;
  analysis: ScenarioResultEntity['analysis'];
}

export interface ScenarioView {
  id: string;
  planId: string;
  seedRuleCode: string;
  scenarioName: string;
  type: string;
  scope: string;
  inputFacts: Record<string, unknown>;
  inputHash: string;
  expectedBehavior: ScenarioEntity['expectedBehavior'];
  origin: ScenarioEntity['origin'];
  status: string;
  confirmed: boolean;
  confirmedBy: string | null;
  confirmedAt: string | null;
  lastResult?: ScenarioResultView | null;
}

export interface PlanView {
  id: string;
  /** null for a workflow's plan */
  tableId: string | null;
  tableVersion: number | null;
  /** a control-plane workflow's plan: its name and the version the expectations come from (else null) */
  workflowName: string | null;
  workflowVersion: number | null;
  seedRuleCode: string;
  scope: string;
  seed: number;
  aiModelUsed: string | null;
  /** milliseconds */
  generationDuration: number;
  candidates: number;
  duplicatesRemoved: number;
  /** of `duplicatesRemoved`, the near duplicates (vector similarity) */
  nearDuplicatesRemoved: number;
  /** the embedding that judged near duplicates (`openai:<model>`, `local-facts-hash-v1`; null: hash only) */
  embeddingModelUsed: string | null;
  scenarioCount: number;
  /** scenarios confirmed by a person, kept as they were by this generation */
  confirmedKept: number;
  /** the first scenarios by position (the list route pages through all) */
  scenarios: ScenarioView[];
  createdAt: string;
  modifiedAt: string;
}

export interface RunView {
  id: string;
  planId: string;
  tableVersion: number;
  kind: string;
  total: number;
  passed: number;
  failed: number;
  errored: number;
  coverage: Record<string, unknown>;
  mutation: Record<string, unknown> | null;
  gate: CiRunResult['gate'] | null;
  /** milliseconds */
  duration: number;
  createdBy: string;
  createdAt: string;
}

export function scenarioView(s: ScenarioEntity, lastResult?: ScenarioResultEntity | null): ScenarioView {
  return {
    id: s.id,
    planId: s.planId,
    seedRuleCode: s.seedRuleCode,
    scenarioName: s.scenarioName,
    type: s.type,
    scope: s.scope,
    inputFacts: s.inputFacts,
    inputHash: s.inputHash,
    expectedBehavior: s.expectedBehavior,
    origin: s.origin,
    status: s.status,
    confirmed: s.confirmed,
    confirmedBy: s.confirmedBy,
    confirmedAt: s.confirmedAt ? s.confirmedAt.toISOString() : null,
    ...(lastResult !== undefined ? { lastResult: lastResult ? resultView(lastResult) : null } : {}),
  };
}

export function resultView(r: ScenarioResultEntity): ScenarioResultView {
  return {
    runId: r.runId,
    scenarioId: r.scenarioId,
    status: r.status,
    isSuccess: r.isSuccess,
    matchesExpectation: r.matchesExpectation,
    outputFacts: r.outputFacts,
    matchedRows: r.matchedRows,
    errors: r.errors,
    duration: r.duration,
    analysis: r.analysis,
  };
}

export function planView(
  p: ScenarioPlanEntity,
  count: number,
  confirmedKept: number,
  first: ScenarioEntity[],
): PlanView {
  return {
    id: p.id,
    tableId: p.tableId,
    tableVersion: p.tableVersion,
    workflowName: p.workflowName ?? null,
    workflowVersion: p.workflowVersion ?? null,
    seedRuleCode: p.seedRuleCode,
    scope: p.scope,
    seed: p.seed,
    aiModelUsed: p.aiModelUsed,
    generationDuration: p.generationDuration,
    candidates: p.candidates,
    duplicatesRemoved: p.duplicatesRemoved,
    nearDuplicatesRemoved: p.nearDuplicatesRemoved ?? 0,
    embeddingModelUsed: p.embeddingModelUsed ?? null,
    scenarioCount: count,
    confirmedKept,
    scenarios: first.map((s) => scenarioView(s)),
    createdAt: p.createdAt.toISOString(),
    modifiedAt: p.modifiedAt.toISOString(),
  };
}

export function runView(r: ScenarioRunEntity): RunView {
  return {
    id: r.id,
    planId: r.planId,
    tableVersion: r.tableVersion,
    kind: r.kind,
    total: r.passed + r.failed + r.errored,
    passed: r.passed,
    failed: r.failed,
    errored: r.errored,
    coverage: r.coverage,
    mutation: r.mutation,
    gate: (r.gate as CiRunResult['gate']) ?? null,
    duration: r.duration,
    createdBy: r.createdBy,
    createdAt: r.createdAt.toISOString(),
  };
}

/** How many failed scenarios a run reports (the counts cover all of them). */
export const REPORTED_FAILURES = 100;

/** A failed scenario as a run reports it: what was expected, what happened, and why (`A`: the finding). */
export interface FailureView<A = FailureFinding> {
  scenarioId: string;
  scenarioName: string;
  status: string;
  inputFacts: Record<string, unknown>;
  expected: { matchedRows: string[]; outputs: Record<string, unknown> | null; errorCode: string | null };
  actual: { matchedRows: string[]; outputs: Record<string, unknown> | null; errors: string[] };
  analysis: A[];
}

/** The first `REPORTED_FAILURES` failed scenarios of a run (`results[i]` is `scenarios[i]`'s), a table's or a workflow's. */
export function failureViews<A>(
  results: readonly {
    status: string;
    matchedRows: string[];
    outputFacts: Record<string, unknown> | null;
    errors: string[];
    analysis: A[];
  }[],
  scenarios: readonly ScenarioEntity[],
): FailureView<A>[] {
  const failures: FailureView<A>[] = [];
  results.forEach((r, i) => {
    if (r.status === 'Passed' || failures.length >= REPORTED_FAILURES) return;
    const s = scenarios[i];
    failures.push({
      scenarioId: s.id,
      scenarioName: s.scenarioName,
      status: r.status,
      inputFacts: s.inputFacts,
      expected: {
        matchedRows: s.expectedBehavior.matchedRows,
        outputs: s.expectedBehavior.outputs,
        errorCode: s.expectedBehavior.errorCode ?? null,
      },
      actual: { matchedRows: r.matchedRows, outputs: r.outputFacts, errors: r.errors },
      analysis: r.analysis,
    });
  });
  return failures;
}
