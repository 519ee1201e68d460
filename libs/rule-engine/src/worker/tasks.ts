/**
 * Tasks of the authoring worker pool (run in a worker thread; see `AUTHORING_TASKS_FILE`): work whose
 * cost a rule author controls, done off the service's event loop. Inputs and results are plain data
 * (structured clone); a compiled rule set or table never crosses.
 */
import * as path from 'node:path';
import { compileRuleSet } from '../rulesets/compile-ruleset';
import type { CompiledRuleSet, Facts, RuleSetEvaluation, RuleSetShapeName } from '../rulesets/types';
import type { TableLimits } from '../definition';
import { checkDecisionTable, validateDecisionTable, type ValidationResult } from '../validate';
import type { TableProblem } from '../types';
import { sharedJavaScriptSandbox } from '../sandbox';

/**
 * The built task module. The path is the same from the sources (tests) and from the build, so a
 * worker always runs the built JavaScript (`npm run build` first).
 */
export const AUTHORING_TASKS_FILE = path.resolve(__dirname, '../../dist/worker/tasks.js');

/** Said by a resolver the worker cannot serve: the document needs the service (a stored table, another workflow). */
const NEEDS_HOST = 'ARBITER_WORKER_NEEDS_HOST';

export interface DryRunTask {
  document: Record<string, unknown>;
  shape: RuleSetShapeName;
  workflowName: string;
  facts: Facts;
  /** absolute deadline, epoch ms */
  deadline: number;
  maxSteps?: number;
  tenantId?: string;
  correlationId?: string;
}

export type DryRunTaskResult =
  | { ok: true; evaluation: RuleSetEvaluation }
  | { ok: false; needsHost: true }
  | { ok: false; needsHost: false; message: string };

/**
 * Compiles and evaluates an unsaved rule set with side effects off. A document that reaches outside
 * the process (a stored decision table, a sub flow) answers `needsHost`: the service runs it itself.
 */
export async function dryRunDocument(task: DryRunTask): Promise<DryRunTaskResult> {
  const needsHost = () => Promise.reject(new Error(NEEDS_HOST));
  let compiled;
  try {
    compiled = await compileRuleSet(task.document, task.shape, {
      workflowName: task.workflowName,
      resolveDecisionTable: needsHost,
      resolveSubFlow: needsHost,
    });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    if (message.includes(NEEDS_HOST)) return { ok: false, needsHost: true };
    return { ok: false, needsHost: false, message };
  }
  const evaluation = await compiled.evaluate(task.facts, {
    sideEffects: false,
    trace: true,
    deadline: task.deadline,
    maxSteps: task.maxSteps,
    tenantId: task.tenantId,
    correlationId: task.correlationId,
  });
  if (evaluation.errors.some((e) => e.message.includes(NEEDS_HOST))) return { ok: false, needsHost: true };
  return { ok: true, evaluation };
}

/** A stored, immutable version run off the service's event loop (`executeStored`). */
export interface StoredExecutionTask {
  /** tenant, workflow and version: a version never changes, so its compiled form is kept per thread */
  key: string;
  document: Record<string, unknown>;
  shape: RuleSetShapeName;
  workflowName: string;
  facts: Facts;
  trace: boolean;
  /** absolute deadline, epoch ms */
  deadline: number;
  maxSteps?: number;
  tenantId?: string;
  correlationId?: string;
}

/** Compiled stored versions of this thread, least recently used first. */
const storedVersions = new Map<string, Promise<CompiledRuleSet>>();
const STORED_VERSIONS_KEPT = 16;

/**
 * Runs a stored version whose evaluation outgrew the service's in-process share of the FEEL budget (a
 * loop an author saved), with the whole budget and deadline. Only versions without side effects come
 * here (no connector node), so the result is the one the service would have computed. A version that
 * reaches outside the process (a stored table, a sub flow) answers `needsHost`.
 */
export async function executeStored(task: StoredExecutionTask): Promise<DryRunTaskResult> {
  const needsHost = () => Promise.reject(new Error(NEEDS_HOST));
  let compiling = storedVersions.get(task.key);
  if (compiling) storedVersions.delete(task.key); // moved to the most recently used end below
  compiling ??= compileRuleSet(task.document, task.shape, {
    workflowName: task.workflowName,
    resolveDecisionTable: needsHost,
    resolveSubFlow: needsHost,
  });
  storedVersions.set(task.key, compiling);
  if (storedVersions.size > STORED_VERSIONS_KEPT)
    storedVersions.delete(storedVersions.keys().next().value as string);
  let compiled: CompiledRuleSet;
  try {
    compiled = await compiling;
  } catch (error) {
    storedVersions.delete(task.key);
    const message = error instanceof Error ? error.message : String(error);
    if (message.includes(NEEDS_HOST)) return { ok: false, needsHost: true };
    return { ok: false, needsHost: false, message };
  }
  const evaluation = await compiled.evaluate(task.facts, {
    sideEffects: false,
    trace: task.trace,
    deadline: task.deadline,
    maxSteps: task.maxSteps,
    tenantId: task.tenantId,
    correlationId: task.correlationId,
  });
  if (evaluation.errors.some((e) => e.message.includes(NEEDS_HOST))) return { ok: false, needsHost: true };
  return { ok: true, evaluation };
}

/** Loads this module (the engine, FEEL, the JavaScript sandbox) in a fresh thread. */
export async function warmUp(): Promise<boolean> {
  await sharedJavaScriptSandbox();
  return true;
}

export interface ValidateTableTask {
  definition: unknown;
  /**
   * The definition as JSON text instead (`definition` then unused): a string crosses to the worker as one
   * copy, where a 100,000-row object graph took the sending thread ~100 ms of structured cloning.
   */
  definitionJson?: string;
  /**
   * Or its UTF-8 bytes (a request body as received, moved to the worker: nothing copied or decoded on
   * the sending thread). A leading byte order mark is skipped, as the request's own parse skipped it.
   */
  definitionBytes?: Uint8Array;
  /** Or those bytes in parts, in order (a stored version read part by part; a character may straddle two). */
  definitionParts?: Uint8Array[];
  limits: TableLimits;
}

const definitionOf = (task: ValidateTableTask): unknown => {
  if (task.definitionBytes !== undefined || task.definitionParts !== undefined) {
    const text = Buffer.concat(task.definitionParts ?? [task.definitionBytes!]).toString('utf8');
    return JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  }
  return task.definitionJson !== undefined ? JSON.parse(task.definitionJson) : task.definition;
};

/** Structure and FEEL of every cell, without the analysis (`checkDecisionTable`): what a save needs. */
export function checkTable(task: ValidateTableTask): TableProblem[] {
  return checkDecisionTable(definitionOf(task), task.limits);
}

/** Structure and FEEL of every cell, then the overlap, gap and redundancy analysis (`validateDecisionTable`). */
export function validateTable(task: ValidateTableTask): ValidationResult {
  return validateDecisionTable(definitionOf(task), task.limits);
}
