/** A built-in function: its signatures, and how a call picks one by arity or by argument names. */
import { warn } from '../evaluation-context';
import { FeelFunction, hasOwn, type FeelValue } from '../values';

/** an argument as a signature implementation receives it (`undefined`: not passed) */
export type V = FeelValue | undefined;
export interface Sig {
  params: string[];
  /** number of required params (default: all) */
  required?: number;
  variadic?: boolean;
  impl: (...args: V[]) => FeelValue;
}

/** How a category module adds its functions to the registry. */
export type DefineBuiltin = (name: string, ...sigs: Sig[]) => BuiltinFunction;

export function sig(
  params: string[],
  impl: (...args: V[]) => FeelValue,
  required?: number,
  variadic?: boolean,
): Sig {
  return { params, impl, required, variadic };
}

/** Built-in function with one or more signatures; chooses a signature by arity or by argument names. */
export class BuiltinFunction extends FeelFunction {
  constructor(
    name: string,
    readonly sigs: Sig[],
  ) {
    super(
      sigs[0].params.map((p) => ({ name: p })),
      (args) => this.call(args),
      { name, builtin: true, variadic: sigs.some((s) => s.variadic) },
    );
  }
  call(args: V[]): FeelValue {
    const n = args.length;
    for (const s of this.sigs) {
      const req = s.required ?? s.params.length;
      if (n >= req && (s.variadic || n <= s.params.length)) return s.impl(...unwrapScalars(s, args));
    }
    return warn(`${this.name}: no signature accepts ${n} argument(s)`);
  }
  callNamed(named: Record<string, V>): FeelValue {
    const keys = Object.keys(named);
    const exact = this.sigs.filter(
      (s) => s.params.slice(0, keys.length).join('\u0000') === keys.join('\u0000'),
    );
    for (const s of [...exact, ...this.sigs]) {
      if (!keys.every((k) => s.params.includes(k))) continue;
      let last = -1;
      s.params.forEach((p, i) => {
        if (hasOwn(named, p)) last = i;
      });
      const args: V[] = [];
      last = Math.max(last, (s.required ?? s.params.length) - 1);
      for (let i = 0; i <= last; i++) args.push(hasOwn(named, s.params[i]) ? named[s.params[i]] : null);
      if (s.variadic && last === s.params.length - 1) {
        const rest = named[s.params[last]];
        args.pop();
        if (Array.isArray(rest)) args.push(...rest);
        else args.push(rest);
      }
      return s.impl(...unwrapScalars(s, args));
    }
    return warn(`${this.name}: no signature accepts parameters ${keys.join(', ')}`);
  }
}

const SCALAR_PARAMS = new Set([
  'string',
  'match',
  'input',
  'pattern',
  'replacement',
  'flags',
  'delimiter',
  'n',
  'number',
  'dividend',
  'divisor',
  'scale',
  'start position',
  'length',
  'year',
  'month',
  'day',
  'hour',
  'minute',
  'second',
  'offset',
  'grouping separator',
  'decimal separator',
  'position',
  'negand',
]);
/** A one-element list passed for a scalar parameter is that element (DMN 1.5 singleton-list rule). */
function unwrapScalars(s: Sig, args: V[]): V[] {
  let out = args;
  for (let i = 0; i < args.length && i < s.params.length; i++) {
    const a = args[i];
    if (
      Array.isArray(a) &&
      a.length === 1 &&
      SCALAR_PARAMS.has(s.params[i]) &&
      !(s.variadic && i === s.params.length - 1)
    ) {
      if (out === args) out = [...args];
      out[i] = a[0];
    }
  }
  return out;
}
