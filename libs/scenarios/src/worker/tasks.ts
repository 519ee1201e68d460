/**
 * Tasks of the scenario worker pool (run in a worker thread; see `SCENARIO_TASKS_FILE`): generating a
 * table's scenario plan, running a plan, the mutation run — work whose cost grows with the table an author
 * saved, done off the service's event loop. Inputs and results are plain data; the large ones cross as JSON
 * text (one string copy each way, where structured cloning a 10,000-scenario object graph would hold the
 * receiving thread), and a compiled table never crosses.
 */
import * as path from 'node:path';
import { TableCompileError, type DecisionTableDefinition } from '@arbiter/rule-engine';
import { expectationFor, generateTableScenarios } from '../generate-table';
import { mutationRun, type MutationReport } from '../mutation';
import { runTableScenarios, type RunnableScenario, type TableRunReport } from '../run-table';
import { keepDistinct, localEmbedding } from '../similarity';
import { buildTableModel } from '../table-model';
import type { ExpectedBehavior, GeneratedPlan } from '../types';

/**
 * The built task module. The path is the same from the sources (tests) and from the build, so a worker
 * always runs the built JavaScript (`npm run build` first).
 */
export const SCENARIO_TASKS_FILE = path.resolve(__dirname, '../../dist/worker/tasks.js');

/** A stored table that no longer compiles: the message of its `TableCompileError`. */
export interface NotCompiled {
  ok: false;
  compileError: string;
}

export interface GenerateTableTask {
  /** the stored definition as JSON text */
  definitionJson: string;
  seedRuleCode: string;
  seed: number;
  maxScenarios: number;
}

export type GenerateTableResult =
  | {
      ok: true;
      /** the `GeneratedPlan` as JSON text */
      planJson: string;
    }
  | NotCompiled;

export interface RunTableTask {
  definitionJson: string;
  /** the plan's scenarios (`RunnableScenario[]`) as JSON text, by position */
  scenariosJson: string;
  /** the mutation run after the run (the CI gate), with these options; absent: none */
  mutation?: { maxMutants: number; seed: number };
}

export type RunTableResult =
  | {
      ok: true;
      /** the `TableRunReport` as JSON text */
      reportJson: string;
      mutation: MutationReport | null;
    }
  | NotCompiled;

type Facts = Record<string, unknown>;

export interface TableExpectationsTask {
  definitionJson: string;
  facts: Facts[];
  /** why each scenario exists (the expectation's description starts with it) */
  why: string;
}

export interface KeepDistinctTask {
  /** cosine at or above which an entry is a near duplicate (0 < threshold ≤ 1) */
  threshold: number;
  /** the entries' vectors (a remote model's answers), or `facts` to embed with the local embedding */
  vectors?: ArrayLike<number>[];
  facts?: Facts[];
  /** how many leading entries are already kept (compared with, never returned) */
  against: number;
}

function compiling<T>(work: () => T): T | NotCompiled {
  try {
    return work();
  } catch (error) {
    if (error instanceof TableCompileError) return { ok: false, compileError: error.message };
    throw error;
  }
}

/** Generates a stored table's plan (`generateTableScenarios`), thinned by the local embedding when asked. */
export function generateTable(task: GenerateTableTask): GenerateTableResult {
  const definition = JSON.parse(task.definitionJson) as DecisionTableDefinition;
  const generated = compiling(() =>
    generateTableScenarios(definition, {
      seedRuleCode: task.seedRuleCode,
      seed: task.seed,
      maxScenarios: task.maxScenarios,
    }),
  );
  if ('ok' in generated) return generated;
  return { ok: true, planJson: JSON.stringify(generated satisfies GeneratedPlan) };
}

/** What the stored table does for each of these facts (`expectationFor`): the expectations of added scenarios. */
export function tableExpectations(
  task: TableExpectationsTask,
): { ok: true; expected: ExpectedBehavior[] } | NotCompiled {
  const definition = JSON.parse(task.definitionJson) as DecisionTableDefinition;
  return compiling(() => {
    const model = buildTableModel(definition);
    return { ok: true as const, expected: task.facts.map((f) => expectationFor(model, f, null, task.why)) };
  });
}

/** Runs a plan against a stored version (`runTableScenarios`), then the mutation run when asked. */
export function runTable(task: RunTableTask): RunTableResult {
  const definition = JSON.parse(task.definitionJson) as DecisionTableDefinition;
  const scenarios = JSON.parse(task.scenariosJson) as RunnableScenario[];
  const ran = compiling((): { report: TableRunReport; mutation: MutationReport | null } => {
    const model = buildTableModel(definition);
    const report = runTableScenarios(model, scenarios);
    const mutation = task.mutation
      ? mutationRun(
          definition,
          scenarios.map((s) => ({ inputFacts: s.inputFacts, expectedBehavior: s.expectedBehavior })),
          { maxMutants: task.mutation.maxMutants, seed: task.mutation.seed },
        )
      : null;
    return { report, mutation };
  });
  if ('ok' in ran) return ran;
  return { ok: true, reportJson: JSON.stringify(ran.report), mutation: ran.mutation };
}

/**
 * Indexes (after the `against` leading ones) of the entries that are not near duplicates (`keepDistinct`),
 * over a remote model's vectors (the service made the HTTP calls) or the local embedding of the facts.
 */
export function keepDistinctEntries(task: KeepDistinctTask): number[] {
  const vectors = task.vectors ?? (task.facts ?? []).map((f) => localEmbedding(f));
  return keepDistinct(vectors.slice(task.against), task.threshold, vectors.slice(0, task.against));
}
