/**
 * `function(…) external { java: { class, method signature } }`: the safe whitelist of Java methods FEEL
 * models may bind (`java.lang.Math.*`, `Byte/Short/Integer/Long/Double/Float.valueOf`, `String.valueOf`,
 * `String.format`), implemented in JS. Any other class or method is not supported (null).
 */
import { Decimal, FeelFunction, isContext, isNumber, toDecimal, type FeelValue } from './values';

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
