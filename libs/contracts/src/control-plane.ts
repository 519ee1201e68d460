import type { RuleSetChangedEvent } from './subjects';

/** Push hub paths of the control plane (both documented spellings serve every target). */
export const ControlPlaneHubPaths = ['/hubs/rule-set-change', '/hubs/ruleset-changes'] as const;

/** SignalR invocation targets the control-plane hub sends. */
export const ControlPlaneHubTargets = {
  RuleSetChangeEvent: 'RuleSetChangeEvent',
  CanaryStateChanged: 'CanaryStateChanged',
} as const;

/** `RuleSetChangeEvent` arguments[0]: the bus payload as published. */
export type RuleSetChangeHubEvent = RuleSetChangedEvent;

/** `CanaryStateChanged` arguments[0]. */
export interface CanaryStateChangedHubEvent {
  workflowName: string;
  status: 'Active' | 'Promoted' | 'RolledBack';
  version: number;
  rolloutId: string;
  tenantId: string;
  occurredAt: string;
}

/** Rule set version statuses (spec 1, "States and transitions"). */
export type RuleSetVersionStatus =
  'Draft' | 'PendingApproval' | 'Approved' | 'Active' | 'Archived' | 'Rejected';

/** Operator audit actions of the control plane. */
export type RuleSetAuditAction =
  'SAVE' | 'IMPORT' | 'SUBMIT' | 'APPROVE' | 'REJECT' | 'ACTIVATE' | 'ARCHIVE' | 'INVALIDATE';
