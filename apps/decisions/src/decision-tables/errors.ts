import { AuthErrorCodes } from '@arbiter/auth';
import { AppError, defineErrorFamily, isUniqueViolation } from '@arbiter/platform';
import type { TableProblem } from '@arbiter/rule-engine';

/** Stable `code` values of the decision-table API (the spec leaves them open). */
export const DecisionTableErrors = {
  TableNotFound: 'TABLE_NOT_FOUND',
  VersionNotFound: 'VERSION_NOT_FOUND',
  InvalidVersion: 'INVALID_VERSION',
  DuplicateName: 'DUPLICATE_TABLE_NAME',
  ConcurrentModification: 'CONCURRENT_MODIFICATION',
  InvalidTable: 'INVALID_TABLE',
  InvalidInput: 'INVALID_INPUT',
  MissingRequiredInput: 'MISSING_REQUIRED_INPUT',
  InputTypeMismatch: 'INPUT_TYPE_MISMATCH',
  HitPolicyViolation: 'HIT_POLICY_VIOLATION',
  InvalidFeel: 'INVALID_FEEL',
  InvalidFormat: 'INVALID_FORMAT',
  InvalidImport: 'INVALID_IMPORT',
  /** 422: one evaluation's FEEL ran out of `DecisionTables:EvaluationStepBudget` steps */
  EvaluationBudgetExceeded: 'EVALUATION_BUDGET_EXCEEDED',
  /** 422: one evaluation ran past `DecisionTables:EvaluationTimeoutMs` */
  DeadlineExceeded: 'DEADLINE_EXCEEDED',
  /** 413: an import holds more tables than `DecisionTables:MaxImportTables` */
  ImportTooManyTables: 'IMPORT_TOO_MANY_TABLES',
  /** 413: a CSV file or XLSX worksheet has more lines than `DecisionTables:MaxImportLines` */
  ImportTooManyRows: 'IMPORT_TOO_MANY_ROWS',
  /** 413: an XLSX archive has more entries than `DecisionTables:MaxImportArchiveEntries` */
  ArchiveTooManyEntries: 'ARCHIVE_TOO_MANY_ENTRIES',
  /** 413: an XLSX archive decompresses past `DecisionTables:MaxImportUncompressedBytes` (zip bomb) */
  ArchiveTooLarge: 'ARCHIVE_TOO_LARGE',
  /** 400: an upload in a format the import does not read (OpenDocument `.ods`, legacy `.xls`, a zip that is no XLSX) */
  UnsupportedFileFormat: 'UNSUPPORTED_FILE_FORMAT',
  /** 400: an upload that holds no table (an XLSX with empty sheets, a DMN file without a decision table) */
  ImportEmpty: 'IMPORT_EMPTY',
  /** 400: an import none of whose tables could be created (each one's reason in `details`) */
  ImportFailed: 'IMPORT_FAILED',
  /** 400: a DMN file declares a document type (DTD): entity declarations (billion laughs, XXE) */
  XmlDoctypeNotAllowed: 'XML_DOCTYPE_NOT_ALLOWED',
} as const;

/**
 * The errors of the decision-table routes (tables, FEEL helpers, import/export, the hot evaluate route):
 * the catalog above, the authentication codes and the platform's common ones.
 */
export const DecisionTableErrorFamily = defineErrorFamily({
  name: 'DecisionTableError',
  envelope: 'trace',
  description:
    'A decision-table failure: `{ error, code, traceId }` (`details`, one entry per bad field, row or column, on ' +
    '`VALIDATION_FAILED`, `INVALID_TABLE`, `INVALID_FEEL` and input problems).',
  codes: [AuthErrorCodes, DecisionTableErrors],
});

/** 400 INVALID_TABLE with one detail per bad row/column (`rows.<rowId>.<column>`, else `table`). */
export function invalidTable(problems: TableProblem[]): AppError {
  return AppError.badRequest(
    DecisionTableErrors.InvalidTable,
    `The table definition is invalid: ${problems[0]?.message ?? 'unknown problem'}`,
    problems.map((p) => ({
      field: [p.rowId ? `rows.${p.rowId}` : null, p.column].filter(Boolean).join('.') || 'table',
      message: p.message,
    })),
  );
}

/**
 * A `catch` handler turning PostgreSQL's unique violation (23505, raw or wrapped by TypeORM) into a 409
 * with `code`: the constraint, not a prior read, is what decides a race between two writers.
 */
export function conflictOnUniqueViolation(code: string, message: string) {
  return (error: unknown): never => {
    if (isUniqueViolation(error)) throw AppError.conflict(code, message);
    throw error;
  };
}
