/** Why an evaluation was refused. `code` is stable; the service maps it to an HTTP status. */
export type EvaluationErrorCode =
  | 'MISSING_REQUIRED_INPUT'
  | 'INPUT_TYPE_MISMATCH'
  | 'HIT_POLICY_VIOLATION'
  /** the evaluation's FEEL ran out of its step budget */
  | 'EVALUATION_BUDGET_EXCEEDED'
  /** the evaluation ran past its deadline */
  | 'DEADLINE_EXCEEDED';

export class EvaluationError extends Error {
  constructor(
    readonly code: EvaluationErrorCode,
    message: string,
    readonly column?: string,
    readonly rowIds?: string[],
  ) {
    super(message);
    this.name = 'EvaluationError';
  }
}

/** The table cannot be compiled (bad FEEL in a cell, unknown hit policy, …); `problems` name row and column. */
export class TableCompileError extends Error {
  constructor(readonly problems: { rowId: string | null; column: string | null; message: string }[]) {
    super(problems.map((p) => p.message).join('; '));
    this.name = 'TableCompileError';
  }
}
