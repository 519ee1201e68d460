/** Parsing entry points: source text to AST (expressions, unary tests, type expressions), with FEEL's names. */
import type { Node, TypeNode } from './ast';
import { builtins } from './builtins';
import type { CompileOptions } from './compiler';
import { FeelSyntaxError } from './lexer';
import { Parser, makeFrame, parseExpression, parseUnaryTests, type Frame } from './parser';

/** names usable as multi-word names regardless of scope */
const EXTRA_NAMES = ['time offset', 'start included', 'end included'];
/** the names every source knows: built-in functions and multi-word property names */
export const builtinFrame: Frame = makeFrame([...builtins.keys(), ...EXTRA_NAMES]);

export interface FeelCompileOptions extends CompileOptions {
  /** names known in scope: an array of names or an example context (its keys are used) */
  scope?: Iterable<string> | Record<string, unknown>;
}

/** the outcome of the non-throwing compile functions */
export type CompileResult<T> = { ok: true; value: T } | { ok: false; error: FeelSyntaxError };

/** The names a `scope` option declares. */
export function scopeNames(scope: FeelCompileOptions['scope']): string[] {
  if (!scope) return [];
  if (typeof (scope as Iterable<string>)[Symbol.iterator] === 'function' && typeof scope !== 'string')
    return [...(scope as Iterable<string>)];
  return Object.keys(scope as object);
}

/** A compile error as a FeelSyntaxError (a stack overflow on a deeply nested source: too complex). */
export function toSyntaxError(e: unknown): FeelSyntaxError {
  if (e instanceof FeelSyntaxError) return e;
  if (e instanceof RangeError) return new FeelSyntaxError('Expression too complex', 1, 1, '');
  return new FeelSyntaxError(String((e as Error)?.message ?? e), 1, 1, '');
}

/** Parse only (AST), for tools. */
export function parse(src: string, options: { unaryTests?: boolean; scope?: Iterable<string> } = {}): Node {
  const names = options.scope ? [...options.scope] : [];
  return options.unaryTests
    ? parseUnaryTests(src, { frames: [builtinFrame], names })
    : parseExpression(src, { frames: [builtinFrame], names });
}

/** Parse a FEEL type expression such as `list<number>` or `context<a: string>`. */
export function parseTypeExpression(src: string): TypeNode {
  const p = new Parser(src, { frames: [builtinFrame] });
  const t = p.parseType();
  p.expectEnd();
  return t;
}
