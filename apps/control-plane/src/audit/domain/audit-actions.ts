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
  'CANARY_START',
  'CANARY_PROMOTE',
  'CANARY_ROLLBACK',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];
