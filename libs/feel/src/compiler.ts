/**
 * AST -> JS closures. Every node becomes a function `(scope) => value`; evaluation never re-parses,
 * never uses eval/new Function, and reads variables straight from the caller's context object.
 */
import type { Iteration, Node, TypeNode } from './ast';
import { BuiltinFunction, builtins, defineKey, MAX_LIST_SIZE, dayOfWeek } from './builtins';
import {
  add,
  div,
  eq,
  ge,
  gt,
  inRange,
  isInstanceOf,
  le,
  lt,
  matchesValue,
  mul,
  ne,
  neg,
  parseAtLiteral,
  pow,
  sub,
} from './ops';
import { toDateTime } from './temporal';
import {
  Decimal,
  DaysTimeDuration,
  FeelContext,
  FeelDate,
  FeelDateTime,
  FeelFunction,
  FeelRange,
  FeelTime,
  FeelValue,
  YearsMonthsDuration,
  feelCompare,
  hasOwn,
  isContext,
  isNumber,
  formatOffset,
  toDecimal,
  typeName,
  warn,
} from './values';

export class Scope {
  constructor(
    readonly vars: Record<string, unknown> | null,
    readonly parent: Scope | null,
  ) {}
}

export type Evaluator = (s: Scope) => FeelValue;
export type Predicate = (v: FeelValue, s: Scope) => boolean | null;

export interface CompileOptions {
  /** resolves type names (e.g. DMN item definitions) for `instance of` */
  resolveType?: (name: string) => TypeNode | null;
  /** hook for `function(...) external {...}` definitions */
  externalFunction?: (definition: FeelValue) => FeelFunction | null;
}

/** thrown to abort a runaway evaluation; caught at the top level */
export class EvaluationAborted extends Error {}

let budget = 0;
export const STEP_BUDGET = 20_000_000;
export function resetBudget(): void {
  budget = STEP_BUDGET;
}
function step(n = 1): void {
  budget -= n;
  if (budget < 0) throw new EvaluationAborted('evaluation step budget exhausted');
}
let callDepth = 0;
export const MAX_CALL_DEPTH = 400;

export function lookup(s: Scope | null, name: string): FeelValue | undefined {
  for (let c = s; c !== null; c = c.parent) {
    const v = c.vars;
    if (v !== null && hasOwn(v, name)) {
      const x = v[name];
      return x === undefined ? null : (x as FeelValue);
    }
  }
  return undefined;
}

function truthy3(v: FeelValue): boolean | null {
  return typeof v === 'boolean' ? v : null;
}

export function containsQmark(n: unknown): boolean {
  if (!n || typeof n !== 'object') return false;
  if (Array.isArray(n)) return n.some(containsQmark);
  const node = n as Node;
  if (node.t === 'qmark') return true;
  if (node.t === 'num') return false;
  for (const v of Object.values(node)) if (v && typeof v === 'object' && containsQmark(v)) return true;
  return false;
}

export class Compiler {
  constructor(private opts: CompileOptions = {}) {}

  compile(n: Node): Evaluator {
    switch (n.t) {
      case 'num': {
        const v = n.value;
        return () => v;
      }
      case 'str': {
        const v = n.value;
        return () => v;
      }
      case 'bool': {
        const v = n.value;
        return () => v;
      }
      case 'null':
        return () => null;
      case 'at': {
        const v = parseAtLiteral(n.value);
        const src = n.value;
        return v === null ? () => warn(`invalid temporal literal @"${src}"`) : () => v;
      }
      case 'qmark':
        return (s) => lookup(s, '?') ?? null;
      case 'name':
        return this.compileName(n.name);
      case 'path':
        return this.compilePath(n.target, n.name);
      case 'filter':
        return this.compileFilter(n.target, n.cond);
      case 'call':
        return this.compileCall(n);
      case 'neg': {
        const a = this.compile(n.arg);
        return (s) => neg(a(s));
      }
      case 'arith': {
        const l = this.compile(n.left);
        const r = this.compile(n.right);
        switch (n.op) {
          case '+':
            return (s) => add(l(s), r(s));
          case '-':
            return (s) => sub(l(s), r(s));
          case '*':
            return (s) => mul(l(s), r(s));
          case '/':
            return (s) => div(l(s), r(s));
          case '**':
            return (s) => pow(l(s), r(s));
        }
        break;
      }
      case 'cmp': {
        const l = this.compile(n.left);
        const r = this.compile(n.right);
        const f = { '=': eq, '!=': ne, '<': lt, '<=': le, '>': gt, '>=': ge }[n.op];
        return (s) => f(l(s), r(s));
      }
      case 'and': {
        const l = this.compile(n.left);
        const r = this.compile(n.right);
        return (s) => {
          const a = truthy3(l(s));
          if (a === false) return false;
          const b = truthy3(r(s));
          if (b === false) return false;
          return a === true && b === true ? true : null;
        };
      }
      case 'or': {
        const l = this.compile(n.left);
        const r = this.compile(n.right);
        return (s) => {
          const a = truthy3(l(s));
          if (a === true) return true;
          const b = truthy3(r(s));
          if (b === true) return true;
          return a === false && b === false ? false : null;
        };
      }
      case 'between': {
        const v = this.compile(n.value);
        const lo = this.compile(n.low);
        const hi = this.compile(n.high);
        return (s) => {
          const x = v(s);
          const a = ge(x, lo(s));
          const b = le(x, hi(s));
          if (a === false || b === false) return false;
          return a === true && b === true ? true : null;
        };
      }
      case 'in': {
        const v = this.compile(n.value);
        const tests = n.tests.map((t) => this.compileTest(t));
        if (tests.length === 1) {
          const t0 = tests[0];
          return (s) => {
            const x = v(s);
            return t0(x, new Scope({ '?': x }, s));
          };
        }
        return (s) => {
          const x = v(s);
          const inner = new Scope({ '?': x }, s);
          let sawNull = false;
          for (const t of tests) {
            const r = t(x, inner);
            if (r === true) return true;
            if (r === null) sawNull = true;
          }
          return sawNull ? null : false;
        };
      }
      case 'instance': {
        const v = this.compile(n.value);
        const type = n.type;
        const resolve = this.opts.resolveType;
        return (s) => isInstanceOf(v(s), type, resolve);
      }
      case 'if': {
        const c = this.compile(n.cond);
        const t = this.compile(n.then);
        const e = this.compile(n.else);
        return (s) => (c(s) === true ? t(s) : e(s));
      }
      case 'for':
        return this.compileFor(n.iters, n.body);
      case 'quant':
        return this.compileQuant(n.every, n.iters, n.cond);
      case 'list': {
        const items = n.items.map((i) => this.compile(i));
        return (s) => {
          const r = new Array<FeelValue>(items.length);
          for (let i = 0; i < items.length; i++) r[i] = items[i](s);
          return r;
        };
      }
      case 'context': {
        const entries = n.entries.map((e) => ({ key: e.key, value: this.compile(e.value) }));
        const keys = new Set<string>();
        for (const e of entries) {
          if (keys.has(e.key)) return () => warn(`duplicate context key '${e.key}'`);
          keys.add(e.key);
        }
        return (s) => {
          const ctx: FeelContext = {};
          const inner = new Scope(ctx, s);
          for (const e of entries) defineKey(ctx, e.key, e.value(inner));
          return ctx;
        };
      }
      case 'range': {
        const st = n.start ? this.compile(n.start) : null;
        const en = n.end ? this.compile(n.end) : null;
        const si = n.startIncl;
        const ei = n.endIncl;
        return (s) => makeRange(si, st ? st(s) : undefined, en ? en(s) : undefined, ei);
      }
      case 'utest': {
        const a = this.compile(n.arg);
        switch (n.op) {
          case '<':
            return (s) => new FeelRange(false, undefined, a(s), false);
          case '<=':
            return (s) => new FeelRange(false, undefined, a(s), true);
          case '>':
            return (s) => new FeelRange(false, a(s), undefined, false);
          case '>=':
            return (s) => new FeelRange(true, a(s), undefined, false);
          case '=':
            return (s) => {
              const x = a(s);
              return new FeelRange(true, x, x, true, '=');
            };
          default:
            return () => warn('!= cannot be used as a value');
        }
      }
      case 'fndef':
        return this.compileFnDef(n);
      case 'uany':
        return () => true;
      case 'ulist':
      case 'unot':
        return () => warn('unary tests cannot be evaluated as an expression');
    }
    return () => null;
  }

  // ------------------------------------------------------------ unary tests
  /** compile a positive unary test into a predicate on the input value */
  compileTest(n: Node): Predicate {
    switch (n.t) {
      case 'uany':
        return () => true;
      case 'utest': {
        const op = n.op;
        if (n.arg.t === 'num' || n.arg.t === 'str') {
          const c = n.arg.value;
          if (typeof c === 'number') {
            switch (op) {
              case '<':
                return (v) => (typeof v === 'number' ? v < c : lt(v, c));
              case '<=':
                return (v) => (typeof v === 'number' ? v <= c : le(v, c));
              case '>':
                return (v) => (typeof v === 'number' ? v > c : gt(v, c));
              case '>=':
                return (v) => (typeof v === 'number' ? v >= c : ge(v, c));
            }
          }
          const f = { '=': eq, '!=': ne, '<': lt, '<=': le, '>': gt, '>=': ge }[op];
          return (v) => f(v, c);
        }
        const a = this.compile(n.arg);
        const f = { '=': eq, '!=': ne, '<': lt, '<=': le, '>': gt, '>=': ge }[op];
        return (v, s) => f(v, a(s));
      }
      case 'range': {
        if (
          n.start?.t === 'num' &&
          n.end?.t === 'num' &&
          typeof n.start.value === 'number' &&
          typeof n.end.value === 'number' &&
          n.start.value <= n.end.value
        ) {
          // constant numeric range: fold into two comparisons
          const lo = n.start.value;
          const hi = n.end.value;
          const r0 = new FeelRange(n.startIncl, lo, hi, n.endIncl);
          const si = n.startIncl;
          const ei = n.endIncl;
          return (v) =>
            typeof v === 'number' ? (si ? v >= lo : v > lo) && (ei ? v <= hi : v < hi) : inRange(v, r0);
        }
        const r = this.compile(n);
        return (v, s) => {
          const x = r(s);
          return x instanceof FeelRange ? inRange(v, x) : null;
        };
      }
      case 'unot': {
        const tests = n.tests.map((t) => this.compileTest(t));
        return (v, s) => {
          let sawNull = false;
          for (const t of tests) {
            const r = t(v, s);
            if (r === true) return false;
            if (r === null) sawNull = true;
          }
          return sawNull ? null : true;
        };
      }
      case 'ulist': {
        const tests = n.tests.map((t) => this.compileTest(t));
        if (tests.length === 1) return tests[0];
        return (v, s) => {
          let sawNull = false;
          for (const t of tests) {
            const r = t(v, s);
            if (r === true) return true;
            if (r === null) sawNull = true;
          }
          return sawNull ? null : false;
        };
      }
      case 'str': {
        const c = n.value;
        return (v) => (typeof v === 'string' ? v === c : eq(v, c));
      }
      case 'num': {
        const c = n.value;
        return (v) => (typeof v === 'number' && typeof c === 'number' ? v === c : eq(v, c));
      }
      case 'bool':
      case 'null': {
        const c = n.t === 'bool' ? n.value : null;
        return (v) => v === c;
      }
    }
    const e = this.compile(n);
    if (containsQmark(n)) {
      return (v, s) => {
        const r = e(s);
        if (typeof r === 'boolean') return r;
        return matchesValue(v, r);
      };
    }
    return (v, s) => matchesValue(v, e(s));
  }

  // ------------------------------------------------------------ names, paths, filters
  private compileName(name: string): Evaluator {
    const b = builtins.get(name) ?? null;
    if (name.includes('.')) {
      // a scope name such as `Person.Gender` may also be a path on `Person`
      const parts = name.split('.').map((p) => p.trim());
      return (s) => {
        const v = lookup(s, name);
        if (v !== undefined) return v;
        let cur = lookup(s, parts[0]);
        if (cur === undefined) return warn(`unknown variable '${name}'`);
        for (let i = 1; i < parts.length; i++) cur = getProperty(cur, parts[i]);
        return cur;
      };
    }
    return (s) => {
      const v = lookup(s, name);
      if (v !== undefined) return v;
      if (b) return b;
      return warn(`unknown variable '${name}'`);
    };
  }

  private compilePath(targetNode: Node, name: string): Evaluator {
    const target = this.compile(targetNode);
    return (s) => getProperty(target(s), name);
  }

  private compileFilter(targetNode: Node, condNode: Node): Evaluator {
    const target = this.compile(targetNode);
    const cond = this.compile(condNode);
    const constIndex = condNode.t === 'num' ? condNode.value : null;
    return (s) => {
      let list = target(s);
      if (list === null) return null;
      if (!Array.isArray(list)) list = [list];
      if (constIndex !== null) return indexList(list, constIndex);
      if (list.length === 0) {
        // still evaluate to detect numeric index
        const r = cond(new Scope({ item: null }, s));
        return isNumber(r) ? null : [];
      }
      const out: FeelValue[] = [];
      for (let i = 0; i < list.length; i++) {
        const item = list[i];
        step();
        const withItem = new Scope({ item }, s);
        const r = cond(isContext(item) ? new Scope(item, withItem) : withItem);
        if (i === 0 && isNumber(r)) return indexList(list, r);
        if (r === true) out.push(item);
      }
      return out;
    };
  }

  // ------------------------------------------------------------ calls
  private compileCall(n: Extract<Node, { t: 'call' }>): Evaluator {
    const args = n.args.map((a) => this.compile(a));
    const named = n.named?.map((a) => ({ name: a.name, value: this.compile(a.value) }));
    let fnEval: Evaluator;
    let fname = '';
    if (n.fn.t === 'name') {
      fname = n.fn.name;
      const name = n.fn.name;
      const b = builtins.get(name) ?? null;
      fnEval = name.includes('.')
        ? this.compileName(name)
        : (s) => {
            const v = lookup(s, name);
            if (v !== undefined) return v;
            return b ?? warn(`unknown function '${name}'`);
          };
    } else fnEval = this.compile(n.fn);
    return (s) => {
      const f = fnEval(s);
      if (!(f instanceof FeelFunction)) {
        if (f !== null) warn(`'${fname || typeName(f)}' is not a function`);
        return null;
      }
      if (named) {
        const vals: Record<string, FeelValue> = {};
        for (const a of named) vals[a.name] = a.value(s);
        return callNamed(f, vals);
      }
      const vals = new Array<FeelValue>(args.length);
      for (let i = 0; i < args.length; i++) vals[i] = args[i](s);
      return callFunction(f, vals);
    };
  }

  private compileFnDef(n: Extract<Node, { t: 'fndef' }>): Evaluator {
    const body = this.compile(n.body);
    const params = n.params.map((p) => ({
      name: p.name,
      type: p.type ? typeToString(p.type) : undefined,
      node: p.type,
    }));
    const resolve = this.opts.resolveType;
    if (n.external) {
      const ext = this.opts.externalFunction;
      return (s) => {
        const def = body(s);
        const f =
          ext?.(def) ??
          externalJava(
            def,
            params.map((p) => p.name),
          );
        return f ?? warn('external function not supported');
      };
    }
    return (s) =>
      new FeelFunction(
        params,
        (args) => {
          const vars: Record<string, FeelValue> = {};
          for (let i = 0; i < params.length; i++) {
            let a = args[i] === undefined ? null : args[i];
            const p = params[i];
            if (p.node && a !== null && !isInstanceOf(a, p.node, resolve)) {
              if (Array.isArray(a) && a.length === 1 && isInstanceOf(a[0], p.node, resolve)) a = a[0];
              else return warn(`argument '${p.name}' does not conform to ${p.type}`);
            }
            vars[p.name] = a;
          }
          return body(new Scope(vars, s));
        },
        {},
      );
  }

  // ------------------------------------------------------------ iteration
  private compileDomains(iters: Iteration[]) {
    return iters.map((it) => ({
      name: it.name,
      domain: this.compile(it.domain),
      end: it.end ? this.compile(it.end) : null,
    }));
  }

  private compileFor(iters: Iteration[], bodyNode: Node): Evaluator {
    const doms = this.compileDomains(iters);
    const body = this.compile(bodyNode);
    return (s) => {
      const results: FeelValue[] = [];
      const rec = (k: number, scope: Scope): boolean => {
        if (k === doms.length) {
          step();
          results.push(body(new Scope({ partial: results }, scope)));
          return true;
        }
        const d = doms[k];
        const items = domainItems(d.domain(scope), d.end ? d.end(scope) : undefined, d.end !== null);
        if (items === null) return false;
        for (const it of items) {
          if (!rec(k + 1, new Scope({ [d.name]: it }, scope))) return false;
        }
        return true;
      };
      return rec(0, s) ? results : null;
    };
  }

  private compileQuant(every: boolean, iters: Iteration[], condNode: Node): Evaluator {
    const doms = this.compileDomains(iters);
    const cond = this.compile(condNode);
    return (s) => {
      let failed = false;
      // returns true when the quantifier is decided
      const rec = (k: number, scope: Scope): boolean => {
        if (k === doms.length) {
          step();
          const r = cond(scope);
          return every ? r !== true : r === true;
        }
        const d = doms[k];
        const items = domainItems(d.domain(scope), d.end ? d.end(scope) : undefined, d.end !== null);
        if (items === null) {
          failed = true;
          return true;
        }
        for (const it of items) if (rec(k + 1, new Scope({ [d.name]: it }, scope))) return true;
        return false;
      };
      const decided = rec(0, s);
      if (failed) return null;
      return every ? !decided : decided;
    };
  }
}

function makeRange(
  si: boolean,
  st: FeelValue | undefined,
  en: FeelValue | undefined,
  ei: boolean,
): FeelValue {
  if (st !== undefined && en !== undefined && st !== null && en !== null) {
    const c = feelCompare(st, en);
    if (c === null) return warn('range endpoints are not comparable');
    if (c > 0) return warn('range start is after its end');
  }
  return new FeelRange(si, st, en, ei);
}

function indexList(list: FeelValue[], idx: number | Decimal): FeelValue {
  const d = toDecimal(idx);
  if (!d.isInteger()) return null;
  let i = d.toNumber();
  if (i === 0) return null;
  if (i < 0) i = list.length + i;
  else i = i - 1;
  if (i < 0 || i >= list.length) return null;
  return list[i];
}

function domainItems(v: FeelValue, end: FeelValue | undefined, hasEnd: boolean): FeelValue[] | null {
  if (hasEnd) return rangeItems(v, end ?? null, true, true);
  if (Array.isArray(v)) return v;
  if (v instanceof FeelRange) {
    if (v.start === undefined || v.end === undefined || v.start === null || v.end === null)
      return warn('cannot iterate over an unbounded range');
    return rangeItems(v.start, v.end, v.startIncluded, v.endIncluded);
  }
  if (v === null) return warn('cannot iterate over null');
  return [v];
}

function rangeItems(a: FeelValue, b: FeelValue, si: boolean, ei: boolean): FeelValue[] | null {
  if (isNumber(a) && isNumber(b)) {
    const x = toDecimal(a);
    const y = toDecimal(b);
    if (!x.isInteger() || !y.isInteger()) return warn('range iteration needs integer endpoints');
    const from = x.toNumber();
    const to = y.toNumber();
    if (Math.abs(to - from) > MAX_LIST_SIZE) return warn('range too large to iterate');
    const r: FeelValue[] = [];
    const dir = to >= from ? 1 : -1;
    for (let i = from; dir > 0 ? i <= to : i >= to; i += dir) {
      if ((i === from && !si) || (i === to && !ei)) continue;
      r.push(i);
    }
    step(r.length);
    return r;
  }
  if (
    a instanceof FeelDate &&
    b instanceof FeelDate &&
    !(a instanceof FeelDateTime) &&
    !(b instanceof FeelDateTime)
  ) {
    const from = a.epochDay;
    const to = b.epochDay;
    if (Math.abs(to - from) > MAX_LIST_SIZE) return warn('range too large to iterate');
    const dir = to >= from ? 1 : -1;
    const r: FeelValue[] = [];
    for (let i = from; dir > 0 ? i <= to : i >= to; i += dir) {
      if ((i === from && !si) || (i === to && !ei)) continue;
      r.push(FeelDate.fromEpochDay(i));
    }
    step(r.length);
    return r;
  }
  return warn('cannot iterate over this range');
}

export function callFunction(f: FeelFunction, args: FeelValue[]): FeelValue {
  if (f instanceof BuiltinFunction) return f.call(args);
  if (args.length > f.params.length && !f.options.variadic)
    return warn(`too many arguments for ${f.name ?? 'function'}`);
  if (++callDepth > MAX_CALL_DEPTH) {
    callDepth--;
    throw new EvaluationAborted('function call depth limit exceeded');
  }
  try {
    return f.invoke(args);
  } finally {
    callDepth--;
  }
}

export function callNamed(f: FeelFunction, named: Record<string, FeelValue>): FeelValue {
  if (f instanceof BuiltinFunction) return f.callNamed(named);
  const args: FeelValue[] = [];
  for (const k of Object.keys(named))
    if (!f.params.some((p) => p.name === k)) return warn(`unknown parameter '${k}'`);
  for (const p of f.params) args.push(hasOwn(named, p.name) ? named[p.name] : null);
  return callFunction(f, args);
}

const WEEKDAY_ISO = (d: FeelDate) => dayOfWeek(d) + 1;

export function getProperty(v: FeelValue, name: string): FeelValue {
  if (v === null) return null;
  if (isContext(v)) return hasOwn(v, name) ? (v[name] ?? null) : null;
  if (Array.isArray(v)) return v.map((e) => getProperty(e, name));
  if (v instanceof FeelDateTime) {
    switch (name) {
      case 'year':
      case 'month':
      case 'day':
        return v.date[name];
      case 'weekday':
        return WEEKDAY_ISO(v.date);
      case 'hour':
      case 'minute':
      case 'second':
        return v.time[name];
      case 'time offset': {
        const o = v.time.offset ?? (v.time.zone ? v.effectiveOffset() : null);
        return o === null ? null : new DaysTimeDuration(new Decimal(o));
      }
      case 'timezone':
        return v.time.zone;
    }
    return warn(`no property '${name}' on date and time`);
  }
  if (v instanceof FeelDate) {
    switch (name) {
      case 'year':
      case 'month':
      case 'day':
        return v[name];
      case 'weekday':
        return WEEKDAY_ISO(v);
    }
    return warn(`no property '${name}' on date`);
  }
  if (v instanceof FeelTime) {
    switch (name) {
      case 'hour':
      case 'minute':
      case 'second':
        return v[name];
      case 'time offset':
        return v.offset === null ? null : new DaysTimeDuration(new Decimal(v.offset));
      case 'timezone':
        return v.zone;
    }
    return warn(`no property '${name}' on time`);
  }
  if (v instanceof DaysTimeDuration) {
    const secs = v.seconds;
    const sign = secs.isNegative() ? -1 : 1;
    const a = secs.abs().floor().toNumber();
    switch (name) {
      case 'days':
        return sign * Math.floor(a / 86400) || 0;
      case 'hours':
        return sign * Math.floor((a % 86400) / 3600) || 0;
      case 'minutes':
        return sign * Math.floor((a % 3600) / 60) || 0;
      case 'seconds':
        return sign * (a % 60) || 0;
    }
    return warn(`no property '${name}' on duration`);
  }
  if (v instanceof YearsMonthsDuration) {
    const sign = v.months < 0 ? -1 : 1;
    const a = Math.abs(v.months);
    if (name === 'years') return sign * Math.floor(a / 12) || 0;
    if (name === 'months') return sign * (a % 12) || 0;
    return warn(`no property '${name}' on duration`);
  }
  if (v instanceof FeelRange) {
    switch (name) {
      case 'start':
        return v.start ?? null;
      case 'end':
        return v.end ?? null;
      case 'start included':
        return v.startIncluded;
      case 'end included':
        return v.endIncluded;
    }
  }
  return warn(`no property '${name}' on ${typeName(v)}`);
}

export function typeToString(t: TypeNode): string {
  switch (t.kind) {
    case 'named':
      return t.name;
    case 'list':
      return `list<${typeToString(t.element)}>`;
    case 'range':
      return `range<${typeToString(t.element)}>`;
    case 'context':
      return `context<${t.entries.map((e) => `${e.name}: ${typeToString(e.type)}`).join(', ')}>`;
    case 'function':
      return `function<${t.params.map(typeToString).join(', ')}> -> ${typeToString(t.result)}`;
  }
}

// ------------------------------------------------------------ external java functions (a safe whitelist)
const JAVA_MATH: Record<string, (...a: number[]) => number> = {
  max: Math.max,
  min: Math.min,
  abs: Math.abs,
  floor: Math.floor,
  ceil: Math.ceil,
  sqrt: Math.sqrt,
  pow: Math.pow,
  exp: Math.exp,
  log: Math.log,
  log10: Math.log10,
  sin: Math.sin,
  cos: Math.cos,
  tan: Math.tan,
  atan: Math.atan,
  asin: Math.asin,
  acos: Math.acos,
  round: Math.round,
  signum: Math.sign,
  cbrt: Math.cbrt,
};
export function externalJava(def: FeelValue, paramNames: string[]): FeelFunction | null {
  if (!isContext(def) || !isContext(def.java)) return null;
  const cls = def.java.class;
  const sigStr = def.java['method signature'];
  if (typeof cls !== 'string' || typeof sigStr !== 'string') return null;
  const m = /^\s*([\w$]+)\s*\(([^)]*)\)\s*$/.exec(sigStr);
  if (!m) return null;
  const method = m[1];
  const types = m[2]
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean);
  const params = paramNames.map((name) => ({ name }));
  if (cls === 'java.lang.Math' && JAVA_MATH[method]) {
    const fn = JAVA_MATH[method];
    return new FeelFunction(params, (args) => {
      const nums: number[] = [];
      for (const a of args) {
        if (!isNumber(a)) return null;
        nums.push(toDecimal(a).toNumber());
      }
      const r = fn(...nums);
      if (!Number.isFinite(r)) return null;
      const isInt = types.every((t) => t === 'int' || t === 'long') && method !== 'sqrt';
      return isInt ? Math.trunc(r) : new Decimal(r);
    });
  }
  const INT_CLASSES: Record<string, [number, number]> = {
    'java.lang.Byte': [-128, 127],
    'java.lang.Short': [-32768, 32767],
    'java.lang.Integer': [-2147483648, 2147483647],
    'java.lang.Long': [-Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER],
  };
  if (INT_CLASSES[cls] && method === 'valueOf' && types.length === 1) {
    const [lo, hi] = INT_CLASSES[cls];
    return new FeelFunction(params, (args) => {
      const a = args[0];
      let d: Decimal | null = null;
      if (types[0] === 'java.lang.String')
        d = typeof a === 'string' && /^[+-]?\d+$/.test(a.trim()) ? new Decimal(a.trim()) : null;
      else if (isNumber(a)) d = toDecimal(a).trunc();
      if (!d || d.lt(lo) || d.gt(hi)) return null;
      return d.toNumber();
    });
  }
  if (
    (cls === 'java.lang.Double' || cls === 'java.lang.Float') &&
    method === 'valueOf' &&
    types.length === 1
  ) {
    return new FeelFunction(params, (args) => {
      const a = args[0];
      if (typeof a === 'string')
        return /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(a.trim()) ? new Decimal(a.trim()) : null;
      return isNumber(a) ? a : null;
    });
  }
  if (cls === 'java.lang.String' && method === 'format') {
    return new FeelFunction(
      params,
      (args) => {
        const [fmt, ...rest] = args;
        if (typeof fmt !== 'string') return null;
        const vals = rest.length === 1 && Array.isArray(rest[0]) ? rest[0] : rest;
        let k = 0;
        let bad = false;
        const out = fmt.replace(/%([sdf%n])/g, (_m, c: string) => {
          if (c === '%') return '%';
          if (c === 'n') return '\n';
          const v = vals[k++];
          if (v === undefined) {
            bad = true;
            return '';
          }
          if (c === 'd') {
            if (!isNumber(v) || !toDecimal(v).isInteger()) bad = true;
            return isNumber(v) ? toDecimal(v).toFixed() : '';
          }
          if (c === 'f') return isNumber(v) ? toDecimal(v).toFixed(6) : ((bad = true), '');
          return v === null
            ? 'null'
            : typeof v === 'string'
              ? v
              : isNumber(v)
                ? toDecimal(v).toFixed()
                : String(v);
        });
        return bad ? null : out;
      },
      { variadic: true },
    );
  }
  if (cls === 'java.lang.String' && method === 'valueOf') {
    return new FeelFunction(params, (args) => {
      const a = args[0];
      if (types[0] === 'char') return typeof a === 'string' && [...a].length === 1 ? a : null;
      if (a === null || a === undefined) return 'null';
      if (isNumber(a)) {
        const n = toDecimal(a);
        return types[0] === 'double' || types[0] === 'float'
          ? n.isInteger()
            ? n.toFixed(1)
            : String(n.toNumber())
          : n.toFixed();
      }
      return typeof a === 'string' ? a : String(a);
    });
  }
  return null;
}

export const _internal = { toDateTime, formatOffset };
