/**
 * Boundary values and equivalence classes of one FEEL unary test, read from its AST: for every ordered
 * literal (`>= 5000`, `[1..10)`, `date("2024-01-31")`, `duration("P1D")`) the values just below, on and
 * just above it; for every listed string the string (and, once per cell, one string no cell lists);
 * both booleans; `null` when listed. Tests the shapes do not cover (function calls, names) still give
 * probes around every literal found inside them.
 */
import type { Node } from '@arbiter/feel';
import { inputValueAt, orderedLiteral } from './literals';

export interface Probe {
  value: unknown;
  /** `below`, `on`, `above`, `listed`, `unlisted`, `boolean`, `null` */
  kind: string;
}

function around(node: Node, out: Probe[]): boolean {
  const lit = orderedLiteral(node);
  if (!lit) return false;
  for (const [kind, d] of [
    ['below', -1],
    ['on', 0],
    ['above', 1],
  ] as const) {
    const value = inputValueAt(lit, lit.n + d * lit.step);
    if (value !== null) out.push({ value, kind });
  }
  return true;
}

/** every literal anywhere inside an expression the shapes do not describe */
function walkLiterals(node: unknown, out: Probe[], depth = 0): void {
  if (!node || typeof node !== 'object' || depth > 40) return;
  const n = node as Node;
  if (typeof (n as { t?: unknown }).t === 'string') {
    if (around(n, out)) return;
    if (n.t === 'str') {
      out.push({ value: n.value, kind: 'listed' });
      return;
    }
    if (n.t === 'bool') {
      out.push({ value: n.value, kind: 'listed' });
      return;
    }
  }
  for (const value of Object.values(n)) {
    if (Array.isArray(value)) value.forEach((v) => walkLiterals(v, out, depth + 1));
    else if (value && typeof value === 'object') walkLiterals(value, out, depth + 1);
  }
}

function testProbes(test: Node, out: Probe[]): void {
  switch (test.t) {
    case 'str':
      out.push({ value: test.value, kind: 'listed' });
      return;
    case 'bool':
      out.push({ value: true, kind: 'boolean' }, { value: false, kind: 'boolean' });
      return;
    case 'null':
      out.push({ value: null, kind: 'null' });
      return;
    case 'utest':
      if (!around(test.arg, out)) walkLiterals(test.arg, out);
      return;
    case 'range':
      if (test.start && !around(test.start, out)) walkLiterals(test.start, out);
      if (test.end && !around(test.end, out)) walkLiterals(test.end, out);
      return;
    case 'unot':
      test.tests.forEach((t) => testProbes(t, out));
      return;
    case 'ulist':
      test.tests.forEach((t) => testProbes(t, out));
      return;
    default:
      if (!around(test, out)) walkLiterals(test, out);
  }
}

/**
 * The probes of a unary test's AST. `unlisted` names a string no cell of the column lists (chosen by the
 * caller); it is added when the test lists strings.
 */
export function probesOf(ast: Node, unlisted: string): Probe[] {
  if (ast.t === 'uany') return [];
  const out: Probe[] = [];
  testProbes(ast, out);
  if (out.some((p) => p.kind === 'listed' && typeof p.value === 'string'))
    out.push({ value: unlisted, kind: 'unlisted' });
  return out;
}
