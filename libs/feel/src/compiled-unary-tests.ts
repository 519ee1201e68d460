/** FEEL unary tests (decision-table input entries): compiled once into a predicate on the input value. */
import type { Node } from './ast';
import { Compiler, type Predicate } from './compiler';
import { EvaluationContext, abortWarning, currentEvaluation, enter, leave } from './evaluation-context';
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

export interface CompiledUnaryTests {
  readonly source: string;
  readonly ast: Node;
  /** true / false / null for an input value; `context` supplies other names referenced by the tests */
  test(input: unknown, context?: Record<string, unknown> | null): boolean | null;
  testDetailed(
    input: unknown,
    context?: Record<string, unknown> | null,
  ): { value: boolean | null; warnings: string[] };
  testIn(input: unknown, scope: Scope): boolean | null;
}

/** Test `input` as a new evaluation in `ctx`; a runaway evaluation is cut off and gives null. */
function testNew(
  pred: Predicate,
  input: FeelValue,
  scope: Scope,
  ctx: EvaluationContext | null,
): boolean | null {
  // leave on each path rather than in `finally`: V8 optimises this shape better on the hottest path
  const outer = enter(ctx);
  let result: boolean | null;
  try {
    result = pred(input, scope);
  } catch (e) {
    leave(outer);
    abortWarning(ctx, e);
    return null;
  }
  leave(outer);
  return result;
}

/** Parse and compile FEEL unary tests (a decision-table input entry). Throws FeelSyntaxError. */
export function compileUnaryTests(src: string, options: FeelCompileOptions = {}): CompiledUnaryTests {
  if (typeof src !== 'string') throw new FeelSyntaxError('Unary tests must be a string', 1, 1, '');
  const ast = new Parser(src, {
    frames: [builtinFrame],
    names: scopeNames(options.scope),
  }).parseUnaryTestsRoot();
  const pred: Predicate = new Compiler(options).compileTest(ast);
  /** the scope the tests see: `?` bound to the input, then the caller's names */
  const inputScope = (v: FeelValue, context: Scope | null): Scope => new Scope({ '?': v }, context);
  return {
    source: src,
    ast,
    test: (input, context) => {
      const v = (input === undefined ? null : input) as FeelValue;
      return testNew(pred, v, inputScope(v, context ? new Scope(context, null) : null), null);
    },
    testDetailed: (input, context) => {
      const v = (input === undefined ? null : input) as FeelValue;
      const warnings: string[] = [];
      const value = testNew(
        pred,
        v,
        inputScope(v, new Scope(context ?? null, null)),
        new EvaluationContext(warnings),
      );
      return { value, warnings };
    },
    testIn: (input, scope) => {
      const v = (input === undefined ? null : input) as FeelValue;
      const ctx = currentEvaluation();
      if (ctx === null) return testNew(pred, v, inputScope(v, scope), null);
      try {
        return pred(v, inputScope(v, scope));
      } catch (e) {
        abortWarning(ctx, e);
        return null;
      }
    },
  };
}

/** Non-throwing variant of compileUnaryTests. */
export function tryCompileUnaryTests(
  src: string,
  options?: FeelCompileOptions,
): CompileResult<CompiledUnaryTests> {
  try {
    return { ok: true, value: compileUnaryTests(src, options) };
  } catch (e) {
    return { ok: false, error: toSyntaxError(e) };
  }
}
