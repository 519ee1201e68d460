/**
 * @arbiter/feel — FEEL (DMN 1.3–1.5) for Arbiter.
 *
 * Pipeline: lexer -> parser (scope-aware names) -> AST -> closure compiler. Compile once, evaluate many.
 */
import type { Node, TypeNode } from './ast';
import { builtinSignatures, builtins, setRangeParser } from './builtins';
import { Compiler, CompileOptions, EvaluationAborted, Predicate, Scope, resetBudget } from './compiler';
import { FeelSyntaxError } from './lexer';
import { Parser, makeFrame, parseExpression as parseExpr, parseUnaryTests as parseTests } from './parser';
import { parseDate, parseDateTime, parseDuration, parseTime } from './temporal';
import {
  Decimal,
  DaysTimeDuration,
  FeelContext,
  FeelDate,
  FeelFunction,
  FeelRange,
  FeelTime,
  FeelValue,
  YearsMonthsDuration,
  decimalToNumber,
  isContext,
  numToString,
  setWarningSink,
  valueToString,
} from './values';

export * from './values';
export type { Node, TypeNode } from './ast';
export { FeelSyntaxError } from './lexer';
export { builtins, builtinSignatures } from './builtins';
export { isInstanceOf, parseAtLiteral, normalizeTypeName } from './ops';
export { parseDate, parseTime, parseDateTime, parseDuration } from './temporal';
export { Scope } from './compiler';
export type { CompileOptions } from './compiler';

/** names usable as multi-word names regardless of scope */
const EXTRA_NAMES = ['time offset', 'start included', 'end included'];
const builtinFrame = makeFrame([...builtins.keys(), ...EXTRA_NAMES]);

export interface FeelCompileOptions extends CompileOptions {
  /** names known in scope: an array of names or an example context (its keys are used) */
  scope?: Iterable<string> | Record<string, unknown>;
}

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

function scopeNames(scope: FeelCompileOptions['scope']): string[] {
  if (!scope) return [];
  if (typeof (scope as Iterable<string>)[Symbol.iterator] === 'function' && typeof scope !== 'string')
    return [...(scope as Iterable<string>)];
  return Object.keys(scope as object);
}

function guard<T>(fn: () => T, fallback: T): T {
  resetBudget();
  try {
    return fn();
  } catch (e) {
    if (e instanceof EvaluationAborted) {
      setWarningSinkSafe(e.message);
      return fallback;
    }
    if (e instanceof RangeError) {
      setWarningSinkSafe('evaluation aborted: ' + e.message);
      return fallback;
    }
    throw e;
  }
}
let currentSink: string[] | null = null;
function setWarningSinkSafe(msg: string): void {
  if (currentSink) currentSink.push(msg);
}

function withWarnings<T>(fn: () => T): { value: T; warnings: string[] } {
  const sink: string[] = [];
  const prev = setWarningSink(sink);
  const prevSink = currentSink;
  currentSink = sink;
  try {
    return { value: fn(), warnings: sink };
  } finally {
    setWarningSink(prev);
    currentSink = prevSink;
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
  const evalScope = (scope: Scope): FeelValue => guard(() => fn(scope), null);
  return {
    source: src,
    ast,
    evaluate: (context) => {
      const s = new Scope((context ?? null) as Record<string, unknown> | null, null);
      resetBudget();
      try {
        return fn(s);
      } catch (e) {
        if (e instanceof EvaluationAborted || e instanceof RangeError) return null;
        throw e;
      }
    },
    evaluateDetailed: (context) =>
      withWarnings(() => evalScope(new Scope((context ?? null) as Record<string, unknown> | null, null))),
    evaluateIn: evalScope,
  };
}

/** Parse and compile FEEL unary tests (a decision-table input entry). Throws FeelSyntaxError. */
export function compileUnaryTests(src: string, options: FeelCompileOptions = {}): CompiledUnaryTests {
  if (typeof src !== 'string') throw new FeelSyntaxError('Unary tests must be a string', 1, 1, '');
  const ast = new Parser(src, {
    frames: [builtinFrame],
    names: scopeNames(options.scope),
  }).parseUnaryTestsRoot();
  const pred: Predicate = new Compiler(options).compileTest(ast);
  const run = (input: unknown, scope: Scope): boolean | null => {
    const v = (input === undefined ? null : input) as FeelValue;
    return pred(v, new Scope({ '?': v }, scope));
  };
  return {
    source: src,
    ast,
    test: (input, context) => {
      resetBudget();
      const v = (input === undefined ? null : input) as FeelValue;
      try {
        return pred(v, new Scope({ '?': v }, context ? new Scope(context, null) : null));
      } catch (e) {
        if (e instanceof EvaluationAborted || e instanceof RangeError) return null;
        throw e;
      }
    },
    testDetailed: (input, context) =>
      withWarnings(() => guard(() => run(input, new Scope(context ?? null, null)), null)),
    testIn: (input, scope) => guard(() => run(input, scope), null),
  };
}

export type CompileResult<T> = { ok: true; value: T } | { ok: false; error: FeelSyntaxError };

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
function toSyntaxError(e: unknown): FeelSyntaxError {
  if (e instanceof FeelSyntaxError) return e;
  if (e instanceof RangeError) return new FeelSyntaxError('Expression too complex', 1, 1, '');
  return new FeelSyntaxError(String((e as Error)?.message ?? e), 1, 1, '');
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

/** Parse only (AST), for tools. */
export function parse(src: string, options: { unaryTests?: boolean; scope?: Iterable<string> } = {}): Node {
  const names = options.scope ? [...options.scope] : [];
  return options.unaryTests
    ? parseTests(src, { frames: [builtinFrame], names })
    : parseExpr(src, { frames: [builtinFrame], names });
}

// ---------------------------------------------------------------- validation & suggestions

const SIMPLE_TYPES = new Set([
  'number',
  'string',
  'boolean',
  'date',
  'time',
  'date and time',
  'days and time duration',
  'years and months duration',
  'list',
  'context',
  'range',
  'function',
  'Any',
  'any',
  'object',
  'integer',
  'decimal',
  'double',
]);

/**
 * Validate an expression for the editor: syntax plus unknown names.
 * rowContext maps the names available to the expression to their type names.
 */
export function validate(
  src: string,
  rowContext: Record<string, string> = {},
  opts: { mode?: 'expression' | 'unaryTests' | 'auto' } = {},
): { valid: boolean; message: string; line?: number; column?: number } {
  const mode = opts.mode ?? 'auto';
  const names = Object.keys(rowContext);
  let ast: Node | null = null;
  let err: FeelSyntaxError | null = null;
  if (mode !== 'unaryTests') {
    const r = tryCompileExpression(src, { scope: names });
    if (r.ok) ast = r.value.ast;
    else err = r.error;
  }
  if (!ast && mode !== 'expression') {
    const r = tryCompileUnaryTests(src, { scope: names });
    if (r.ok) ast = r.value.ast;
    else if (!err) err = r.error;
  }
  if (!ast) return { valid: false, message: err!.message, line: err!.line, column: err!.column };
  const unknown = findUnknownNames(ast, new Set(names));
  if (unknown.length)
    return {
      valid: false,
      message: `Unknown name${unknown.length > 1 ? 's' : ''}: ${unknown.map((u) => `'${u}'`).join(', ')}`,
    };
  for (const [k, t] of Object.entries(rowContext)) {
    if (typeof t !== 'string') return { valid: false, message: `Type of '${k}' must be a string` };
    void SIMPLE_TYPES;
  }
  return { valid: true, message: 'OK' };
}

function findUnknownNames(root: Node, known: Set<string>): string[] {
  const unknown = new Set<string>();
  const visit = (n: unknown, bound: Set<string>, dynamic: boolean): void => {
    if (!n || typeof n !== 'object') return;
    if (Array.isArray(n)) {
      for (const x of n) visit(x, bound, dynamic);
      return;
    }
    const node = n as Node;
    switch (node.t) {
      case 'name':
        if (!dynamic && !bound.has(node.name) && !known.has(node.name) && !builtins.has(node.name))
          unknown.add(node.name);
        return;
      case 'num':
        return;
      case 'filter':
        visit(node.target, bound, dynamic);
        visit(node.cond, new Set([...bound, 'item']), true);
        return;
      case 'for':
      case 'quant': {
        const b = new Set(bound);
        if (node.t === 'for') b.add('partial');
        for (const it of node.iters) {
          visit(it.domain, b, dynamic);
          if (it.end) visit(it.end, b, dynamic);
          b.add(it.name);
        }
        visit(node.t === 'for' ? node.body : node.cond, b, dynamic);
        return;
      }
      case 'fndef':
        visit(node.body, new Set([...bound, ...node.params.map((p) => p.name)]), dynamic || node.external);
        return;
      case 'context': {
        const b = new Set(bound);
        for (const e of node.entries) {
          visit(e.value, b, dynamic);
          b.add(e.key);
        }
        return;
      }
      case 'path':
        visit(node.target, bound, dynamic);
        return;
      case 'call':
        if (node.fn.t === 'name') {
          if (!dynamic && !bound.has(node.fn.name) && !known.has(node.fn.name) && !builtins.has(node.fn.name))
            unknown.add(node.fn.name);
        } else visit(node.fn, bound, dynamic);
        visit(node.args, bound, dynamic);
        if (node.named) for (const a of node.named) visit(a.value, bound, dynamic);
        return;
      case 'instance':
        visit(node.value, bound, dynamic);
        return;
    }
    for (const [k, v] of Object.entries(node))
      if (k !== 'pos' && v && typeof v === 'object') visit(v, bound, dynamic);
  };
  visit(root, new Set(), false);
  return [...unknown];
}

export interface Suggestion {
  label: string;
  kind: 'variable' | 'function' | 'keyword';
  detail?: string;
  /** text to replace the typed prefix with */
  insertText: string;
  /** start offset of the replaced prefix */
  from: number;
}

const KEYWORDS = [
  'if',
  'then',
  'else',
  'for',
  'in',
  'return',
  'some',
  'every',
  'satisfies',
  'and',
  'or',
  'not',
  'between',
  'instance of',
  'function',
  'true',
  'false',
  'null',
];

/** Autocomplete: names in scope, built-ins (with signatures) and keywords matching the word before the cursor. */
export function suggest(
  src: string,
  cursor: number = src.length,
  scope: Iterable<string> | Record<string, unknown> = [],
): Suggestion[] {
  const names = scopeNames(scope);
  const before = src.slice(0, Math.max(0, Math.min(cursor, src.length)));
  // the prefix may contain spaces (multi-word names): take the longest suffix that prefixes a candidate
  const m = /[\p{L}\p{N}_? ]*$/u.exec(before);
  const tail = (m ? m[0] : '').replace(/^\s+/, '');
  const words = tail.split(' ');
  const candidates: Omit<Suggestion, 'from' | 'insertText'>[] = [
    ...names.map((n) => ({ label: n, kind: 'variable' as const })),
    ...builtinSignatures().map((b) => ({ label: b.name, kind: 'function' as const, detail: b.signature })),
    ...KEYWORDS.map((k) => ({ label: k, kind: 'keyword' as const })),
  ];
  for (let k = 0; k < words.length; k++) {
    const prefix = words.slice(k).join(' ');
    const lower = prefix.toLowerCase();
    const hits = candidates.filter((c) => c.label.toLowerCase().startsWith(lower));
    if (hits.length || k === words.length - 1) {
      const from = before.length - prefix.length;
      const seen = new Set<string>();
      return hits
        .filter((h) => {
          const key = h.label + '|' + (h.detail ?? '');
          if (seen.has(key)) return false;
          seen.add(key);
          return true;
        })
        .sort((a, b) =>
          a.kind === b.kind
            ? a.label.localeCompare(b.label)
            : a.kind === 'variable'
              ? -1
              : b.kind === 'variable'
                ? 1
                : a.kind === 'function'
                  ? -1
                  : 1,
        )
        .map((h) => ({ ...h, insertText: h.kind === 'function' ? h.label + '(' : h.label, from }));
    }
  }
  return [];
}

// ---------------------------------------------------------------- host conversion

export interface ToJsOptions {
  /** 'number' (default): decimals become JS numbers; 'string': exact decimal strings when not exactly representable */
  decimals?: 'number' | 'string';
}

/** FEEL value -> plain JSON-friendly JS value. */
export function toJs(v: FeelValue | undefined, opts: ToJsOptions = {}, depth = 0): unknown {
  if (v === null || v === undefined) return null;
  if (depth > 200) return null;
  switch (typeof v) {
    case 'number':
    case 'string':
    case 'boolean':
      return v;
  }
  if (v instanceof Decimal) {
    const n = decimalToNumber(v);
    if (opts.decimals === 'string' && new Decimal(n).eq(v) === false) return v.toFixed();
    return n;
  }
  if (Array.isArray(v)) return v.map((e) => toJs(e, opts, depth + 1));
  if (isContext(v)) {
    const o: Record<string, unknown> = {};
    for (const k of Object.keys(v)) o[k] = toJs(v[k], opts, depth + 1);
    return o;
  }
  if (v instanceof FeelFunction) return null;
  if (v instanceof FeelRange) return valueToString(v);
  return String(v);
}

/** Host JS value -> FEEL value (numbers stay JS numbers; Dates become UTC date and time; bigint -> Decimal). */
export function fromJs(v: unknown, depth = 0): FeelValue {
  if (v === null || v === undefined) return null;
  if (depth > 200) return null;
  switch (typeof v) {
    case 'number':
      return Number.isFinite(v) ? v : null;
    case 'string':
    case 'boolean':
      return v;
    case 'bigint':
      return new Decimal(v.toString());
    case 'function':
      return null;
  }
  if (
    v instanceof Decimal ||
    v instanceof FeelDate ||
    v instanceof FeelTime ||
    v instanceof DaysTimeDuration ||
    v instanceof YearsMonthsDuration ||
    v instanceof FeelRange ||
    v instanceof FeelFunction
  )
    return v;
  if (v instanceof Date) {
    const dt = parseDateTime(v.toISOString().replace(/Z$/, 'Z'));
    return dt;
  }
  if (Array.isArray(v)) return v.map((e) => fromJs(e, depth + 1));
  if (typeof v === 'object') {
    const o: FeelContext = {};
    for (const k of Object.keys(v as object)) {
      const x = fromJs((v as Record<string, unknown>)[k], depth + 1);
      if (k === '__proto__')
        Object.defineProperty(o, k, { value: x, enumerable: true, writable: true, configurable: true });
      else o[k] = x;
    }
    return o;
  }
  return null;
}

/** Render a FEEL value as FEEL-like text. */
export function formatValue(v: FeelValue): string {
  return valueToString(v);
}

export { numToString, parseTests as parseUnaryTestsAst, parseExpr as parseExpressionAst };

// range("[1..10]") support: parse the literal with the expression parser
setRangeParser((s: string) => {
  try {
    const ast = parseExpr(s, { frames: [builtinFrame] });
    const ok = (n: Node | null): boolean =>
      !n ||
      n.t === 'num' ||
      n.t === 'str' ||
      n.t === 'at' ||
      n.t === 'null' ||
      (n.t === 'call' &&
        n.fn.t === 'name' &&
        ['date', 'time', 'date and time', 'duration'].includes(n.fn.name) &&
        n.args.every(ok)) ||
      (n.t === 'neg' && ok(n.arg));
    if (ast.t === 'range') {
      if (!ok(ast.start) || !ok(ast.end)) return null;
    } else return null;
    const v = new Compiler().compile(ast)(new Scope(null, null));
    if (
      v instanceof FeelRange &&
      (v.start === null || v.end === null) &&
      !(v.start === undefined || v.end === undefined)
    )
      return null;
    return v;
  } catch {
    return null;
  }
});

void parseDate;
void parseTime;
void parseDuration;

export {
  callFunction as callFeelFunction,
  callNamed as callFeelFunctionNamed,
  externalJava as externalJavaFunction,
} from './compiler';

/** Parse a FEEL type expression such as `list<number>` or `context<a: string>`. */
export function parseTypeExpression(src: string): TypeNode {
  const p = new Parser(src, { frames: [builtinFrame] });
  const t = p.parseType();
  p.expectEnd();
  return t;
}
