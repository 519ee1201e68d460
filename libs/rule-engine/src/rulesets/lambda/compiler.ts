import type { LambdaNode } from './ast';
import { LambdaRuntimeError, describePosition } from './errors';
import { parseLambdaOrThrow } from './parser';
import {
  Value,
  arithmetic,
  callMethod,
  callStatic,
  compare,
  equals,
  indexValue,
  relational,
  requireCollection,
  specialMember,
  typeName,
} from './semantics';

/** Names a lambda can read: the facts (input) and, first, the named parameters (GlobalParams, …). */
export type LambdaScope = Record<string, unknown>;

/**
 * A compiled lambda expression. `scope` is the facts: an identifier reads the fact of that name, and
 * `input`/`input1`, when the facts have no such key, are the facts themselves. `params` holds the values of
 * the parameter names given at compile time (GlobalParams, LocalParams, decision-table results); they win
 * over facts of the same name. Throws LambdaRuntimeError (message with the column) on a runtime failure.
 */
export type CompiledLambda = (scope: LambdaScope, params?: Record<string, unknown>) => unknown;

/** A parameter whose own expression failed: reading it fails the expression that reads it. */
export class FailedParameter {
  constructor(
    readonly name: string,
    readonly message: string,
  ) {}
}

type Fn = (f: LambdaScope, p: Record<string, unknown> | undefined, l: unknown[]) => Value;

const hasOwn = Object.prototype.hasOwnProperty;
const NO_LOCALS: unknown[] = [];
/** Member names that are safe to read with `o[name]` on a plain object (nothing on Object.prototype). */
const protoSafe = (name: string) => !(name in Object.prototype);
const SPECIAL_MEMBERS = new Set([
  'Length',
  'Count',
  'HasValue',
  'Value',
  'Year',
  'Month',
  'Day',
  'Hour',
  'Minute',
  'Second',
  'Date',
  'DayOfWeek',
]);
const LINQ = new Set([
  'Count',
  'Any',
  'All',
  'Where',
  'Select',
  'First',
  'FirstOrDefault',
  'Last',
  'LastOrDefault',
  'Sum',
  'Min',
  'Max',
  'Average',
]);

class LambdaCompiler {
  /** lambda parameter name → local slot, innermost last */
  private readonly locals: { name: string; slot: number }[] = [];
  slots = 0;

  constructor(
    private readonly source: string,
    private readonly parameters: ReadonlySet<string>,
  ) {}

  private error(message: string, pos: number): LambdaRuntimeError {
    return new LambdaRuntimeError(`${message} ${describePosition(this.source, pos)}`);
  }

  /** Wraps a failing operation: the plain Error from semantics.ts becomes a LambdaRuntimeError with the column. */
  private at(pos: number): (e: unknown) => never {
    return (e: unknown) => {
      if (e instanceof LambdaRuntimeError) throw e;
      throw this.error(e instanceof Error ? e.message : String(e), pos);
    };
  }

  compile(node: LambdaNode): Fn {
    switch (node.t) {
      case 'literal': {
        const v = node.value;
        return () => v;
      }
      case 'identifier':
        return this.identifier(node.name, node.pos);
      case 'member':
        return this.member(node.target, node.name, node.nullSafe, node.pos);
      case 'index':
        return this.index(node);
      case 'call':
        return this.call(node);
      case 'static':
        return this.static(node);
      case 'unary':
        return this.unary(node);
      case 'binary':
        return this.binary(node);
      case 'logical':
        return this.logical(node);
      case 'coalesce': {
        const left = this.compile(node.left);
        const right = this.compile(node.right);
        return (f, p, l) => {
          const v = left(f, p, l);
          return v === null || v === undefined ? right(f, p, l) : v;
        };
      }
      case 'conditional': {
        const test = this.compile(node.test);
        const then = this.compile(node.then);
        const otherwise = this.compile(node.else);
        return (f, p, l) => {
          const c = test(f, p, l);
          if (c === true) return then(f, p, l);
          if (c === false) return otherwise(f, p, l);
          throw this.error(`condition of '?:' must be a bool, got ${typeName(c)}`, node.pos);
        };
      }
      case 'lambda':
        throw this.error("unsupported construct 'lambda'", node.pos);
    }
  }

  private identifier(name: string, pos: number): Fn {
    for (let i = this.locals.length - 1; i >= 0; i--)
      if (this.locals[i].name === name) {
        const slot = this.locals[i].slot;
        return (_f, _p, l) => l[slot];
      }
    const isInput = name === 'input' || name === 'input1';
    const fromFacts: (f: LambdaScope) => Value = protoSafe(name)
      ? (f) => {
          // a name not on Object.prototype: a plain read finds only the facts' own key
          const v = f[name];
          if (v !== undefined) return v;
          if (isInput) return f;
          if (hasOwn.call(f, name)) return null;
          throw this.error(`unknown identifier '${name}'`, pos);
        }
      : (f) => {
          if (hasOwn.call(f, name)) {
            const v = f[name];
            return v === undefined ? null : v;
          }
          throw this.error(`unknown identifier '${name}'`, pos);
        };
    if (!this.parameters.has(name)) return fromFacts;
    return (f, p) => {
      if (p !== undefined && hasOwn.call(p, name)) {
        const v = p[name];
        if (v instanceof FailedParameter) throw this.error(`parameter '${name}' failed: ${v.message}`, pos);
        return v === undefined ? null : v;
      }
      return fromFacts(f);
    };
  }

  private member(targetNode: LambdaNode, name: string, nullSafe: boolean, pos: number): Fn {
    const target = this.compile(targetNode);
    const safe = protoSafe(name);
    const special = SPECIAL_MEMBERS.has(name);
    const fail = this.at(pos);
    const slow = (o: Value): Value => {
      if ((o === null || o === undefined) && nullSafe) return null;
      try {
        return specialMember(o, name);
      } catch (e) {
        return fail(e);
      }
    };
    return (f, p, l) => {
      const o = target(f, p, l);
      if (typeof o === 'object' && o !== null && !Array.isArray(o)) {
        const v = safe
          ? (o as Record<string, Value>)[name]
          : hasOwn.call(o, name)
            ? (o as Record<string, Value>)[name]
            : undefined;
        // a data property (JSON values are never functions: a function is a method of a Date, refused)
        if (v !== undefined && typeof v !== 'function') return v;
        // a property the object does not have: null (JSON semantics)
        if (!special && !(o instanceof Date)) return null;
      }
      return slow(o);
    };
  }

  private index(node: Extract<LambdaNode, { t: 'index' }>): Fn {
    const target = this.compile(node.target);
    const index = this.compile(node.index);
    const fail = this.at(node.pos);
    return (f, p, l) => {
      const o = target(f, p, l);
      if (o === null || o === undefined) {
        if (node.nullSafe) return null;
        throw this.error('null reference: cannot index null', node.pos);
      }
      const k = index(f, p, l);
      try {
        const v = indexValue(o, k);
        return v === undefined ? null : v;
      } catch (e) {
        return fail(e);
      }
    };
  }

  private call(node: Extract<LambdaNode, { t: 'call' }>): Fn {
    const target = this.compile(node.target);
    const method = node.method;
    const fail = this.at(node.pos);
    const invoke = LINQ.has(method) ? this.linq(node) : this.plainMethod(node);
    return (f, p, l) => {
      const o = target(f, p, l);
      if ((o === null || o === undefined) && method !== 'GetValueOrDefault') {
        if (node.nullSafe) return null;
        throw this.error(`null reference: cannot call '${method}' on null`, node.pos);
      }
      try {
        return invoke(o, f, p, l);
      } catch (e) {
        return fail(e);
      }
    };
  }

  private plainMethod(
    node: Extract<LambdaNode, { t: 'call' }>,
  ): (o: Value, f: LambdaScope, p: Record<string, unknown> | undefined, l: unknown[]) => Value {
    const args = node.args.map((a) => this.compile(a));
    const method = node.method;
    if (args.length === 0) return (o) => callMethod(o, method, NO_LOCALS);
    if (args.length === 1) {
      const a0 = args[0];
      return (o, f, p, l) => callMethod(o, method, [a0(f, p, l)]);
    }
    return (o, f, p, l) =>
      callMethod(
        o,
        method,
        args.map((a) => a(f, p, l)),
      );
  }

  /** LINQ over collections, with an optional lambda (`x => …`) compiled against a local slot. */
  private linq(
    node: Extract<LambdaNode, { t: 'call' }>,
  ): (o: Value, f: LambdaScope, p: Record<string, unknown> | undefined, l: unknown[]) => Value {
    const method = node.method;
    const arg = node.args[0];
    let fn: Fn | null = null;
    let slot = -1;
    if (arg && arg.t === 'lambda') {
      slot = this.locals.length;
      this.slots = Math.max(this.slots, slot + 1);
      this.locals.push({ name: arg.param, slot });
      try {
        fn = this.compile(arg.body);
      } finally {
        this.locals.pop();
      }
    }
    const body = fn;
    const lambdaPos = arg ? arg.pos : node.pos;
    const predicate = (
      item: Value,
      f: LambdaScope,
      p: Record<string, unknown> | undefined,
      l: unknown[],
    ): boolean => {
      l[slot] = item;
      const r = (body as Fn)(f, p, l);
      if (typeof r !== 'boolean')
        throw this.error(`lambda of '${method}' must return a bool, got ${typeName(r)}`, lambdaPos);
      return r;
    };
    const select = (
      item: Value,
      f: LambdaScope,
      p: Record<string, unknown> | undefined,
      l: unknown[],
    ): Value => {
      l[slot] = item;
      const r = (body as Fn)(f, p, l);
      return r === undefined ? null : r;
    };
    return (o, f, p, l) => {
      const items = requireCollection(o, method);
      switch (method) {
        case 'Count': {
          if (!body) return items.length;
          let n = 0;
          for (const x of items) if (predicate(x, f, p, l)) n++;
          return n;
        }
        case 'Any':
          if (!body) return items.length > 0;
          for (const x of items) if (predicate(x, f, p, l)) return true;
          return false;
        case 'All':
          for (const x of items) if (!predicate(x, f, p, l)) return false;
          return true;
        case 'Where':
          return items.filter((x) => predicate(x, f, p, l));
        case 'Select':
          return items.map((x) => select(x, f, p, l));
        case 'First':
        case 'FirstOrDefault':
        case 'Last':
        case 'LastOrDefault': {
          const last = method.startsWith('Last');
          for (let k = 0; k < items.length; k++) {
            const x = items[last ? items.length - 1 - k : k];
            if (!body || predicate(x, f, p, l)) return x === undefined ? null : x;
          }
          if (method.endsWith('OrDefault')) return null;
          throw new Error(body ? 'sequence contains no matching element' : 'sequence contains no elements');
        }
        default:
          return aggregate(method, body ? items.map((x) => select(x, f, p, l)) : items);
      }
    };
  }

  private static(node: Extract<LambdaNode, { t: 'static' }>): Fn {
    const { type, member } = node;
    const fail = this.at(node.pos);
    const run = (args: Value[]) => {
      try {
        return callStatic(type, member, args);
      } catch (e) {
        return fail(e);
      }
    };
    if (node.args === null) return () => run(NO_LOCALS);
    const args = node.args.map((a) => this.compile(a));
    if (args.length === 1) {
      const a0 = args[0];
      return (f, p, l) => run([a0(f, p, l)]);
    }
    return (f, p, l) => run(args.map((a) => a(f, p, l)));
  }

  private unary(node: Extract<LambdaNode, { t: 'unary' }>): Fn {
    const arg = this.compile(node.arg);
    const op = node.op;
    return (f, p, l) => {
      const v = arg(f, p, l);
      if (v === null || v === undefined) return null; // lifted: !null and -null are null
      if (op === '!') {
        if (typeof v === 'boolean') return !v;
      } else if (typeof v === 'number') return op === '-' ? -v : v;
      throw this.error(`operator '${op}' cannot be applied to ${typeName(v)}`, node.pos);
    };
  }

  private binary(node: Extract<LambdaNode, { t: 'binary' }>): Fn {
    const left = this.compile(node.left);
    const right = this.compile(node.right);
    const fail = this.at(node.pos);
    const op = node.op;
    switch (op) {
      case '==':
      case '!=': {
        const negate = op === '!=';
        return (f, p, l) => {
          const a = left(f, p, l);
          const b = right(f, p, l);
          // fast paths: same primitive type
          if (typeof a === typeof b && typeof a !== 'object') return (a === b) !== negate;
          try {
            return equals(a, b, op) !== negate;
          } catch (e) {
            return fail(e);
          }
        };
      }
      case '<':
      case '<=':
      case '>':
      case '>=': {
        const other = (a: Value, b: Value): Value => {
          try {
            return relational(op, a, b);
          } catch (e) {
            return fail(e);
          }
        };
        // one closure per operator: the number/number path has no dispatch
        switch (op) {
          case '<':
            return (f, p, l) => {
              const a = left(f, p, l);
              const b = right(f, p, l);
              return typeof a === 'number' && typeof b === 'number' ? a < b : other(a, b);
            };
          case '<=':
            return (f, p, l) => {
              const a = left(f, p, l);
              const b = right(f, p, l);
              return typeof a === 'number' && typeof b === 'number' ? a <= b : other(a, b);
            };
          case '>':
            return (f, p, l) => {
              const a = left(f, p, l);
              const b = right(f, p, l);
              return typeof a === 'number' && typeof b === 'number' ? a > b : other(a, b);
            };
          default:
            return (f, p, l) => {
              const a = left(f, p, l);
              const b = right(f, p, l);
              return typeof a === 'number' && typeof b === 'number' ? a >= b : other(a, b);
            };
        }
      }
      default:
        return (f, p, l) => {
          const a = left(f, p, l);
          const b = right(f, p, l);
          try {
            return arithmetic(op, a, b);
          } catch (e) {
            return fail(e);
          }
        };
    }
  }

  private logical(node: Extract<LambdaNode, { t: 'logical' }>): Fn {
    const left = this.compile(node.left);
    const right = this.compile(node.right);
    const and = node.op === '&&';
    const op = node.op;
    const leftPos = node.left.pos;
    const rightPos = node.right.pos;
    const bad = (v: Value, pos: number): never => {
      throw this.error(`operator '${op}' needs bool operands, got ${typeName(v)}`, pos);
    };
    if (and)
      return (f, p, l) => {
        const a = left(f, p, l);
        if (a === false) return false;
        if (a !== true) bad(a, leftPos);
        const b = right(f, p, l);
        return typeof b === 'boolean' ? b : bad(b, rightPos);
      };
    return (f, p, l) => {
      const a = left(f, p, l);
      if (a === true) return true;
      if (a !== false) bad(a, leftPos);
      const b = right(f, p, l);
      return typeof b === 'boolean' ? b : bad(b, rightPos);
    };
  }
}

function aggregate(method: string, values: Value[]): Value {
  if (method === 'Sum' || method === 'Average') {
    let sum = 0;
    let n = 0;
    for (const v of values) {
      if (v === null || v === undefined) continue;
      if (typeof v !== 'number') throw new Error(`'${method}' needs numbers, got ${typeName(v)}`);
      sum += v;
      n++;
    }
    if (method === 'Sum') return sum;
    if (n === 0) throw new Error('sequence contains no elements');
    return sum / n;
  }
  // Min / Max
  if (values.length === 0) throw new Error('sequence contains no elements');
  let best: Value = null;
  for (const v of values) {
    if (v === null || v === undefined) continue;
    if (best === null) best = v;
    else {
      const c = compare(v, best, method);
      if (method === 'Min' ? c < 0 : c > 0) best = v;
    }
  }
  return best;
}

/** Compiles a parsed lambda AST (see compileLambda). */
export function compileLambdaAst(
  ast: LambdaNode,
  source: string,
  parameterNames: Iterable<string> = [],
): CompiledLambda {
  const compiler = new LambdaCompiler(source, new Set(parameterNames));
  const root = compiler.compile(ast);
  const slots = compiler.slots;
  if (slots === 0)
    return (scope, params) => {
      const v = root(scope ?? {}, params, NO_LOCALS);
      return v === undefined ? null : v;
    };
  return (scope, params) => {
    const v = root(scope ?? {}, params, new Array(slots));
    return v === undefined ? null : v;
  };
}

/**
 * Parses and compiles a C#-style lambda expression (Microsoft RulesEngine `Expression`) into a closure:
 * no eval, no per-call parsing. Throws LambdaSyntaxError naming an unsupported construct and its column.
 * `parameterNames`: names read from the `params` argument first (GlobalParams, LocalParams, …).
 */
export function compileLambda(source: string, parameterNames?: Iterable<string>): CompiledLambda {
  return compileLambdaAst(parseLambdaOrThrow(source), source, parameterNames);
}
