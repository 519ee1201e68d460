import { AnalysisResult, analyzeShapes } from './analysis';
import { CompiledDecisionTable } from './compile';
import { DEFAULT_LIMITS, TableLimits, normalizeDefinition } from './definition';
import { TableProblem } from './types';

export interface ValidationResult {
  valid: boolean;
  errors: TableProblem[];
  /** present when the table is structurally valid */
  analysis?: AnalysisResult;
}

/** Validates a definition without saving it: structure and FEEL of every cell, then the analysis. */
export function validateDecisionTable(
  definition: unknown,
  limits: TableLimits = DEFAULT_LIMITS,
): ValidationResult {
  const { table, problems } = normalizeDefinition(definition, limits);
  if (!table) return { valid: false, errors: problems };
  return { valid: true, errors: [], analysis: analyzeTable(new CompiledDecisionTable(table)) };
}

/**
 * The problems of a definition (structure, FEEL of every cell), without the analysis: what a save needs.
 * Empty when the table is valid.
 */
export function checkDecisionTable(
  definition: unknown,
  limits: TableLimits = DEFAULT_LIMITS,
): TableProblem[] {
  return normalizeDefinition(definition, limits).problems;
}

export function analyzeTable(compiled: CompiledDecisionTable): AnalysisResult {
  return analyzeShapes({
    hitPolicy: compiled.hitPolicy,
    columns: compiled.table.inputs.map((i) => ({ name: i.name, type: i.type })),
    rowIds: compiled.table.rows.map((r) => r.id),
    shapes: compiled.shapes,
  });
}
