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
} as const;
