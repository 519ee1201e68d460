/* test helpers (not exported from index) */
import { compileExpression, formatValue } from './index';

/** evaluate and render as FEEL text */
export function fv(src: string, ctx: Record<string, unknown> = {}): string {
  return formatValue(compileExpression(src, { scope: Object.keys(ctx) }).evaluate(ctx));
}
export function warningsOf(src: string, ctx: Record<string, unknown> = {}): string[] {
  return compileExpression(src, { scope: Object.keys(ctx) }).evaluateDetailed(ctx).warnings;
}
