import { TableProblem, validateDecisionTable, ValidationResult } from '@arbiter/rule-engine';
import { DecisionTablesSettings } from '../../settings';
import { invalidTable } from '../errors';
import { StoredDefinition, toStoredDefinitionSliced } from './table-model';

/** The size limits a table definition is checked against (`DecisionTables:MaxRows` / `MaxColumns`). */
export interface TableLimits {
  maxRows: number;
  maxColumns: number;
  maxCellLength: number;
}

export function tableLimits(settings: DecisionTablesSettings): TableLimits {
  return { maxRows: settings.maxRows, maxColumns: settings.maxColumns, maxCellLength: 10_000 };
}

/** The rule engine's verdict on a definition: `{ valid, errors, analysis? }` (the validate routes' answer). */
export function validateDefinition(body: unknown, limits: TableLimits): ValidationResult {
  return validateDecisionTable(body, limits);
}

/**
 * A definition ready to store, made in slices of the event loop (row ids and priorities filled; `previous`: the version it updates, whose
 * row ids rows without one keep, see `assignRowIds`); 400 INVALID_TABLE when its `problems` (structure
 * and FEEL: `checkDecisionTable`, on a worker for large tables) are not none.
 */
export function checkedDefinition(
  body: Record<string, unknown>,
  problems: readonly TableProblem[],
  previous?: StoredDefinition,
): Promise<StoredDefinition> {
  refuseProblems(problems);
  return toStoredDefinitionSliced(body, previous);
}

/** 400 INVALID_TABLE when a definition's `problems` are not none. */
export function refuseProblems(problems: readonly TableProblem[]): void {
  // structure and FEEL only: the overlap/gap analysis is the validate and analyze routes' business
  if (problems.length) throw invalidTable([...problems]);
}
