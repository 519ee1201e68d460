import type { Column } from './table-model';

/** The decisions service's answer to `POST /api/v1/decision-tables/{id}/feel/validate-expression`. */
export interface FeelValidation {
  valid: boolean;
  message: string;
  line?: number;
  column?: number;
}

/**
 * The text shown under a FEEL cell for the service's answer: nothing when valid, else its message, with the
 * position (`line 1, column 4: …`) added when the service gives one the message does not already name
 * (a syntax error says `… at line 1, column 7 (near …)` itself).
 */
export function validationText(result: FeelValidation): string | undefined {
  if (result.valid) return undefined;
  if (!result.line || /\bline \d+/.test(result.message)) return result.message;
  return `line ${result.line}, column ${result.column ?? 1}: ${result.message}`;
}

/**
 * The names in scope of a cell besides the saved table's (the service adds those): the grid's input
 * columns with their types, so a column added in the editor and not saved yet is not an unknown name.
 */
export function validationScope(columns: Column[]): Record<string, string> {
  const scope: Record<string, string> = {};
  for (const c of columns) scope[c.name] = c.type ?? 'any';
  return scope;
}

/** A cell is worth asking about only when it has text (an empty input cell matches anything). */
export function needsValidation(text: string): boolean {
  return text.trim().length > 0;
}
