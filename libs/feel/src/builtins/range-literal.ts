/**
 * The text form of a range for the `range(from)` built-in (`"[1..10]"`, `"(date(\"2020-01-01\")..<end>]"`):
 * a range literal whose endpoints are literals, negated literals or calls of the temporal conversion
 * functions on literals. Anything else is not a range: `null`.
 */
import { warn } from '../evaluation-context';
import type { Node } from '../ast';
import { makeRange, neg, parseAtLiteral } from '../ops';
import { makeFrame, parseExpression } from '../parser';
import { FeelRange, type FeelValue } from '../values';
import type { BuiltinFunction } from './builtin-function';

/** the conversion functions an endpoint may call, by name */
export type EndpointFunctions = Readonly<Record<string, BuiltinFunction>>;

export function parseRangeLiteral(src: string, functions: EndpointFunctions): FeelValue {
  try {
    const ast = parseExpression(src, { frames: [makeFrame(Object.keys(functions))] });
    if (ast.t !== 'range' || !isEndpoint(ast.start, functions) || !isEndpoint(ast.end, functions))
      return null;
    const v = makeRange(
      ast.startIncl,
      ast.start ? endpointValue(ast.start, functions) : undefined,
      ast.end ? endpointValue(ast.end, functions) : undefined,
      ast.endIncl,
    );
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
}

function isEndpoint(n: Node | null, functions: EndpointFunctions): boolean {
  return (
    !n ||
    n.t === 'num' ||
    n.t === 'str' ||
    n.t === 'at' ||
    n.t === 'null' ||
    (n.t === 'call' &&
      n.fn.t === 'name' &&
      Object.hasOwn(functions, n.fn.name) &&
      n.args.every((a) => isEndpoint(a, functions)) &&
      (n.named ?? []).every((a) => isEndpoint(a.value, functions))) ||
    (n.t === 'neg' && isEndpoint(n.arg, functions))
  );
}

/** the value of a node `isEndpoint` accepted */
function endpointValue(n: Node, functions: EndpointFunctions): FeelValue {
  switch (n.t) {
    case 'num':
    case 'str':
      return n.value;
    case 'at':
      return parseAtLiteral(n.value) ?? warn(`invalid temporal literal @"${n.value}"`);
    case 'neg':
      return neg(endpointValue(n.arg, functions));
    case 'call': {
      if (n.fn.t !== 'name') return null;
      const f = functions[n.fn.name];
      if (!n.named) return f.call(n.args.map((a) => endpointValue(a, functions)));
      const named: Record<string, FeelValue> = {};
      for (const a of n.named) named[a.name] = endpointValue(a.value, functions);
      return f.callNamed(named);
    }
  }
  return null;
}
