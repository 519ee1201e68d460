/** Editor validation of a FEEL source: syntax, then names that nothing defines. */
import type { Node } from './ast';
import { builtins } from './builtins';
import { tryCompileExpression } from './compiled-expression';
import { tryCompileUnaryTests } from './compiled-unary-tests';
import type { FeelSyntaxError } from './lexer';

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
