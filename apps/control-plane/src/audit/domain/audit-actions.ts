/** What an operator audit entry records: rule set lifecycle actions and canary rollout transitions. */
export const AUDIT_ACTIONS = [
  'SAVE',
  'SUBMIT',
  'APPROVE',
  'REJECT',
  'ACTIVATE',
  'ARCHIVE',
  'INVALIDATE',
  'IMPORT',
  'EXPORT',
  /** A never-submitted copilot draft discarded (Draft → Rejected). */
  'DISCARD',
  'CANARY_START',
  'CANARY_PROMOTE',
  'CANARY_ROLLBACK',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];
