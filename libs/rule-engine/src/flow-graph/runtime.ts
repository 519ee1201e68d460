import {
  compileExpression,
  type CompiledExpression,
  type EvaluationContext,
  type Scope,
} from '@arbiter/feel';
import type { Facts, RuleSetEvaluationOptions } from '../rulesets/types';
import { FlowCompileError } from './node-kind';

/**
 * What a node runner sees and gives back, and the helpers the node kinds share. The plain path allocates
 * nothing per node: produced facts are written in place by `emit`, outcomes are shared constants.
 */

/** What a node run gives back. */
export type Outcome =
  | { ok: true; branch?: boolean; outputs?: Facts; skipped?: string; sideEffect?: boolean }
  | { ok: false; code: string; message: string };

/** Shared outcomes of the plain path (no allocation per node). */
export const DONE: Outcome = { ok: true };
export const TRUE: Outcome = { ok: true, branch: true };
export const FALSE: Outcome = { ok: true, branch: false };

export interface RunState {
  /** facts the current node produced (only collected for traces) */
  emitted: Facts | null;
  input: Facts;
  /** input + produced facts */
  view: Facts;
  produced: Facts;
  feel: Scope;
  options: RuleSetEvaluationOptions;
  /** the FEEL budget and deadline of the whole run (sub flows share it) */
  budget: EvaluationContext;
}

export type NodeRunner = (state: RunState) => Outcome | Promise<Outcome>;

export const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

function readPath(source: unknown, path: string): unknown {
  let current = source;
  for (const part of path.split('.')) {
    if (!isObject(current)) return undefined;
    current = current[part];
  }
  return current;
}

/** `{ target: "dotted.path" }` applied to `source`; no mapping: `source` itself. */
export function mapFacts(source: Facts, mapping: unknown): Facts {
  if (!isObject(mapping)) return source;
  const out: Facts = {};
  for (const [target, path] of Object.entries(mapping)) out[target] = readPath(source, String(path));
  return out;
}

/** A FEEL expression over the working facts (`input` / `facts`: the original input). */
export function compileFeel(source: string, path: string): CompiledExpression {
  try {
    return compileExpression(source, { scope: ['input', 'facts'] });
  } catch (error) {
    throw new FlowCompileError([{ path, message: (error as Error).message }]);
  }
}

/** Records a produced fact. */
export function emit(s: RunState, key: string, value: unknown): void {
  s.produced[key] = value;
  s.view[key] = value;
  if (s.emitted) s.emitted[key] = value;
}

export function emitAll(s: RunState, facts: Facts): void {
  for (const key of Object.keys(facts)) emit(s, key, facts[key]);
}

export function fail(code: string, message: string): Outcome {
  return { ok: false, code, message };
}

/** A thrown error as a failed outcome: its own `code` when it has one, else `fallback`. */
export function errorOutcome(error: unknown, fallback: string): Outcome {
  const e = error as { code?: unknown; message?: string };
  return fail(typeof e?.code === 'string' ? e.code : fallback, e?.message ?? String(error));
}
