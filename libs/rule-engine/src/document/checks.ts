import { tryCompileExpression } from '@arbiter/feel';
import { DEFAULT_LIMITS, normalizeDefinition } from '../definition';
import { parseLambda } from '../rulesets/lambda';
import type { Problem } from './problems';

/**
 * The checks every part of a rule set document shares (FEEL, C#-style lambdas, embedded decision tables),
 * each pushing problems with the path of the offending value instead of throwing.
 */

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function nonEmptyString(value: unknown): value is string {
  return typeof value === 'string' && value.trim().length > 0;
}

/** FEEL syntax check: `nodes[2].config.expression: FEEL syntax error at line 1, column 4: …`. */
export function checkFeel(path: string, source: string, problems: Problem[]): void {
  const result = tryCompileExpression(source);
  if (!result.ok) {
    const e = result.error;
    problems.push({
      path,
      message: `FEEL syntax error at line ${e.line}, column ${e.column}: ${e.message}`,
    });
  }
}

/**
 * A C#-style lambda (RulesEngine `Expression`, rules form with `expressionLanguage: 'lambda'`) must parse
 * with the engine's own lambda parser: an unsupported construct, unknown method or syntax error is a
 * problem naming it and its column (`unsupported construct 'new' at column 5`).
 */
export function checkLambda(path: string, source: string, problems: Problem[]): void {
  const parsed = parseLambda(source);
  if (!parsed.ok) problems.push({ path, message: parsed.error.message });
}

/**
 * An embedded decision table: structure and the FEEL of every cell (`decisionTables[0].rows[r1].age: …`).
 * The same problems as `validateDecisionTable`, without its analysis (overlaps and gaps are advice, not
 * validity, and cost up to 200,000 search steps).
 */
export function checkDecisionTable(path: string, definition: unknown, problems: Problem[]): void {
  for (const e of normalizeDefinition(definition, DEFAULT_LIMITS).problems)
    problems.push({
      path: `${path}${e.rowId ? `.rows[${e.rowId}]` : ''}${e.column ? `.${e.column}` : ''}`,
      message: e.message,
    });
}
