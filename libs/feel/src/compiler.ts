/**
 * AST -> JS closures. Every node becomes a function `(scope) => value`; evaluation never re-parses,
 * never uses eval/new Function, and reads variables straight from the caller's context object.
 */
import type { Iteration, Node, TypeNode } from './ast';
import { builtins } from './builtins';
import { step, warn } from './evaluation-context';
import { callFunction, callNamed } from './function-calls';
import { domainItems } from './iteration';
import { externalJava } from './java-functions';
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
  makeRange,
  matchesValue,
  mul,
  ne,
  neg,
  parseAtLiteral,
  pow,
  sub,
} from './ops';
import { getProperty } from './properties';
import { Scope, lookup } from './scope';
import {
  Decimal,
  FeelContext,
  FeelFunction,
  FeelRange,
  FeelValue,
  defineKey,
  isContext,
  isNumber,
  toDecimal,
  typeName,
} from './values';

export type Evaluator = (s: Scope) => FeelValue;
export type Predicate = (v: FeelValue, s: Scope) => boolean | null;

export interface CompileOptions {
  /** resolves type names (e.g. DMN item definitions) for `instance of` */
  resolveType?: (name: string) => TypeNode | null;
  /** hook for `function(...) external {...}` definitions */
  externalFunction?: (definition: FeelValue) => FeelFunction | null;
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
