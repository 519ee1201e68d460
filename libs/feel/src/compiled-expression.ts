/** FEEL expressions: compile once, evaluate many; each evaluation with its own EvaluationContext. */
import type { Node } from './ast';
import { Compiler, type Evaluator } from './compiler';
import { EvaluationContext, abortWarning, currentEvaluation, enter, leave } from './evaluation-context';
import { fromJs, toJs } from './host-values';
import { FeelSyntaxError } from './lexer';
import { Parser } from './parser';
import {
  builtinFrame,
  scopeNames,
  toSyntaxError,
  type CompileResult,
  type FeelCompileOptions,
} from './parse';
import { Scope } from './scope';
import type { FeelValue } from './values';

export interface EvaluationResult {
  value: FeelValue;
  warnings: string[];
}

export interface CompiledExpression {
  readonly source: string;
  readonly ast: Node;
  /** evaluate against a context object (plain JS object, read directly, never copied) */
  evaluate(context?: Record<string, unknown> | null): FeelValue;
  /** evaluate and collect warnings (errors that evaluated to null) */
  evaluateDetailed(context?: Record<string, unknown> | null): EvaluationResult;
  /** evaluate with an explicit scope chain (used by the DMN evaluator) */
  evaluateIn(scope: Scope): FeelValue;
}

/** Run `fn` on `scope` as a new evaluation in `ctx`; a runaway evaluation is cut off and gives null. */
function evaluateNew(fn: Evaluator, scope: Scope, ctx: EvaluationContext | null): FeelValue {
  // leave on each path rather than in `finally`: V8 optimises this shape better on the hottest path
  const outer = enter(ctx);
  let result: FeelValue;
  try {
    result = fn(scope);
  } catch (e) {
    leave(outer);
    abortWarning(ctx, e);
    return null;
  }
  leave(outer);
  return result;
}

/** Run `fn` on `scope` as part of the evaluation in progress, or as a new one outside any. */
function evaluateWithin(fn: Evaluator, scope: Scope): FeelValue {
  const ctx = currentEvaluation();
  if (ctx === null) return evaluateNew(fn, scope, null);
  try {
    return fn(scope);
  } catch (e) {
    abortWarning(ctx, e);
    return null;
  }
}

/** Parse and compile a FEEL expression. Throws FeelSyntaxError. */
export function compileExpression(src: string, options: FeelCompileOptions = {}): CompiledExpression {
  if (typeof src !== 'string') throw new FeelSyntaxError('Expression must be a string', 1, 1, '');
  const ast = new Parser(src, {
    frames: [builtinFrame],
    names: scopeNames(options.scope),
  }).parseExpressionRoot();
  const fn = new Compiler(options).compile(ast);
  return {
    source: src,
    ast,
    evaluate: (context) => evaluateNew(fn, new Scope(context ?? null, null), null),
    evaluateDetailed: (context) => {
      const warnings: string[] = [];
      return {
        value: evaluateNew(fn, new Scope(context ?? null, null), new EvaluationContext(warnings)),
        warnings,
      };
    },
    evaluateIn: (scope) => evaluateWithin(fn, scope),
  };
}

/** Non-throwing variant of compileExpression. */
export function tryCompileExpression(
  src: string,
  options?: FeelCompileOptions,
): CompileResult<CompiledExpression> {
  try {
    return { ok: true, value: compileExpression(src, options) };
  } catch (e) {
    return { ok: false, error: toSyntaxError(e) };
  }
}

/** Convenience: compile and evaluate once (results converted with toJs unless raw is set). */
export function evaluate(
  src: string,
  context: Record<string, unknown> = {},
  opts: { raw?: boolean } = {},
): unknown {
  const c = compileExpression(src, { scope: context });
  const v = c.evaluate(fromJs(context) as Record<string, unknown>);
  return opts.raw ? v : toJs(v);
}
