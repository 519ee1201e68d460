/**
 * The state of one FEEL evaluation: its step budget, its user-function call depth and the list its
 * warnings go to.
 *
 * `evaluate`, `evaluateDetailed`, `test`, `testDetailed` and `runEvaluation` each start an evaluation with a
 * context of its own, so two evaluations never share a budget, a depth or warnings, however they nest: a
 * built-in or an external function that starts another evaluation gets a fresh context, and the outer one
 * resumes with its own budget and warnings untouched. `evaluateIn`, `testIn` and `callFeelFunction` are
 * pieces of a host's evaluation: they run in the context of the evaluation in progress (as the DMN
 * evaluator's `runEvaluation` sets up), or in one of their own when there is none.
 *
 * The operators and built-ins that report a warning receive values, not a scope, so the context of the
 * evaluation in progress is found through `current`, which `enter` / `leave` set and restore around each
 * evaluation (evaluation is synchronous, so the innermost one is always the one running). `current` holds
 * no evaluation state of its own.
 */

/** iterations (`for`, `some`/`every`, filters, range elements, user-function calls) one evaluation may take */
export const STEP_BUDGET = 20_000_000;
/** nesting of user-defined function calls in one evaluation */
export const MAX_CALL_DEPTH = 400;
/** warnings kept per evaluation; later ones are dropped */
const MAX_WARNINGS = 100;
/** steps between two looks at the clock of an evaluation with a deadline */
const CLOCK_INTERVAL = 4096;

/** Why an evaluation was cut off; `code` is the stable name hosts answer with. */
export type AbortReason = 'steps' | 'deadline' | 'depth';
const ABORT_CODES = {
  steps: 'EVALUATION_BUDGET_EXCEEDED',
  deadline: 'DEADLINE_EXCEEDED',
  depth: 'CALL_DEPTH_EXCEEDED',
} as const;

/**
 * Thrown to abort a runaway evaluation. An ordinary evaluation catches it at its entry point and gives
 * null with the message as a warning; a bounded one (`runEvaluation` with limits, see
 * `EvaluationContext.bounded`) lets a step-budget or deadline abort reach its host.
 */
export class EvaluationAborted extends Error {
  readonly code: (typeof ABORT_CODES)[AbortReason];
  constructor(
    readonly reason: AbortReason,
    message: string,
  ) {
    super(message);
    this.name = 'EvaluationAborted';
    this.code = ABORT_CODES[reason];
  }
}

/** Limits of one bounded evaluation. */
export interface EvaluationLimits {
  /** steps the whole evaluation may take (default STEP_BUDGET) */
  maxSteps?: number;
  /** wall-clock deadline, epoch milliseconds (`Date.now()` scale); none by default */
  deadline?: number;
}

/** Milliseconds since the epoch with sub-millisecond resolution (monotonic within the process). */
const clock: () => number = () => performance.timeOrigin + performance.now();

export class EvaluationContext {
  /** steps left before the evaluation is aborted */
  stepsLeft = STEP_BUDGET;
  /** user-defined function calls in progress */
  callDepth = 0;
  /**
   * `step` looks further (clock, end of the budget) once `stepsLeft` drops below this: 0 without a
   * deadline, so the common step costs one subtraction and one comparison either way.
   */
  checkAt = 0;
  /** wall-clock deadline (epoch ms), or Infinity */
  deadline = Infinity;
  /**
   * true: a step-budget or deadline abort propagates to the host (through `evaluateIn`, `testIn`, …)
   * instead of turning the piece being evaluated into null.
   */
  bounded = false;

  /** `warnings`: where warnings go, or null to drop them (the caller only wants the value) */
  constructor(readonly warnings: string[] | null = null) {}

  /**
   * Starts (or restarts: a host may keep one context and reuse it evaluation after evaluation) a bounded
   * evaluation with these limits. Allocates nothing.
   */
  restart(maxSteps: number, deadline: number): this {
    this.stepsLeft = maxSteps;
    this.callDepth = 0;
    this.deadline = deadline;
    this.bounded = true;
    this.checkAt = deadline === Infinity ? 0 : Math.max(0, maxSteps - CLOCK_INTERVAL);
    return this;
  }

  /** The slow path of `step`: the budget is spent, or it is time to look at the clock. */
  check(): void {
    if (this.stepsLeft < 0) throw new EvaluationAborted('steps', 'evaluation step budget exhausted');
    if (this.deadline !== Infinity && clock() > this.deadline)
      throw new EvaluationAborted('deadline', 'evaluation deadline passed');
    this.checkAt = this.deadline === Infinity ? 0 : Math.max(0, this.stepsLeft - CLOCK_INTERVAL);
  }

  /** Throws when the deadline has passed (for hosts between the pieces of one evaluation). */
  checkDeadline(): void {
    if (this.deadline !== Infinity && clock() > this.deadline)
      throw new EvaluationAborted('deadline', 'evaluation deadline passed');
  }
}

/**
 * The context of the evaluation in progress. `null` stands for a new evaluation that drops its warnings
 * and has not needed a budget yet: `evaluate` and `test` enter one so that the common evaluation, which
 * never loops or calls a user function, allocates nothing; `step` and `enterCall` create its context.
 */
let current: EvaluationContext | null = null;

/** Start an evaluation in `ctx` (null: one that drops its warnings); returns the one to restore with `leave`. */
export function enter(ctx: EvaluationContext | null): EvaluationContext | null {
  const outer = current;
  current = ctx;
  return outer;
}
/** End the evaluation in progress, making `outer` (what `enter` returned) the one in progress again. */
export function leave(outer: EvaluationContext | null): void {
  current = outer;
}
/** The context of the evaluation in progress, if it has one yet. */
export function currentEvaluation(): EvaluationContext | null {
  return current;
}
/** The context of the evaluation in progress, created now if it has none yet (kept out of the hot paths). */
function createdContext(): EvaluationContext {
  return current ?? (current = new EvaluationContext(null));
}

/** Record a warning on the evaluation in progress (when it collects them); FEEL errors evaluate to null. */
export function warn(message: string): null {
  const w = current?.warnings;
  if (w && w.length < MAX_WARNINGS) w.push(message);
  return null;
}

/** Spend `n` steps of the evaluation's budget; throws EvaluationAborted when it runs out. */
export function step(n = 1): void {
  const ctx = current ?? createdContext();
  ctx.stepsLeft -= n;
  if (ctx.stepsLeft < ctx.checkAt) ctx.check();
}

/**
 * Count one more user-defined function call in progress (bounded by MAX_CALL_DEPTH); the caller
 * decrements `callDepth` of the returned context when the call returns.
 */
export function enterCall(): EvaluationContext {
  const ctx = current ?? createdContext();
  if (++ctx.callDepth > MAX_CALL_DEPTH) {
    ctx.callDepth--;
    throw new EvaluationAborted('depth', 'function call depth limit exceeded');
  }
  return ctx;
}

/**
 * Map an error that aborted an evaluation to its warning (recorded even past the warning limit, as the
 * reason the value is null); rethrow anything else.
 */
export function abortWarning(ctx: EvaluationContext | null, e: unknown): void {
  if (e instanceof EvaluationAborted) {
    if (ctx !== null && ctx.bounded && e.reason !== 'depth') throw e;
    ctx?.warnings?.push(e.message);
  } else if (e instanceof RangeError) ctx?.warnings?.push('evaluation aborted: ' + e.message);
  else throw e;
}

/**
 * Run `fn` as one evaluation that collects its warnings into `warnings` (or drops them when null): FEEL
 * evaluated inside it with `evaluateIn`, `testIn` or `callFeelFunction` shares its step budget, call depth
 * and warnings. For hosts that evaluate one model in many pieces (the DMN evaluator, rule sets).
 *
 * With `limits` the evaluation is bounded: the whole of it may take `maxSteps` steps (default
 * STEP_BUDGET) until `deadline`, and running out of either throws `EvaluationAborted` (code
 * `EVALUATION_BUDGET_EXCEEDED` / `DEADLINE_EXCEEDED`) out of `runEvaluation`, instead of the piece that
 * ran out evaluating to null.
 */
export function runEvaluation<T>(warnings: string[] | null, fn: () => T, limits?: EvaluationLimits): T {
  const ctx = new EvaluationContext(warnings);
  if (limits) ctx.restart(limits.maxSteps ?? STEP_BUDGET, limits.deadline ?? Infinity);
  const outer = enter(ctx);
  try {
    return fn();
  } finally {
    leave(outer);
  }
}
