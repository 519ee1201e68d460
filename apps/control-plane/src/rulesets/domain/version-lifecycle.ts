/**
 * The lifecycle of a rule set version as one table: for each status, the actions it accepts and the
 * status each leads to. Every transition (save-and-activate, activate, submit, approve, reject, the
 * archive of a superseded version, and the canary's "could this version be activated" check) asks
 * this table, so a refused transition is decided in one place.
 */

export const RULE_SET_STATUSES = [
  'Draft',
  'PendingApproval',
  'Approved',
  'Active',
  'Archived',
  'Rejected',
] as const;
export type RuleSetStatus = (typeof RULE_SET_STATUSES)[number];

/**
 * `reject` sends a version back to Draft (the control-plane approval flow); `reject-finally` is the
 * runtime lifecycle's approval denial (terminal Rejected: never activated, never resubmitted);
 * `discard` is the copilot-draft discard (a never-submitted Draft to the terminal Rejected; the caller
 * checks "never submitted" and "is a copilot draft"); `archive` is what activating another version
 * does to the active one.
 */
export const LIFECYCLE_ACTIONS = [
  'submit',
  'approve',
  'reject',
  'reject-finally',
  'discard',
  'activate',
  'archive',
] as const;
export type LifecycleAction = (typeof LIFECYCLE_ACTIONS)[number];

interface Transition {
  to: RuleSetStatus;
  /** Allowed only while approval is not required (`RuleControlPlane:RequireApproval` false). */
  onlyWithoutApproval?: true;
}

export const VERSION_LIFECYCLE: Readonly<
  Record<RuleSetStatus, Readonly<Partial<Record<LifecycleAction, Transition>>>>
> = {
  Draft: {
    submit: { to: 'PendingApproval' },
    activate: { to: 'Active', onlyWithoutApproval: true },
    discard: { to: 'Rejected' },
  },
  PendingApproval: {
    approve: { to: 'Approved' },
    reject: { to: 'Draft' },
    'reject-finally': { to: 'Rejected' },
  },
  Approved: { activate: { to: 'Active' } },
  Active: { archive: { to: 'Archived' } },
  Archived: {},
  Rejected: {},
};

/**
 * The answer to "may `action` be applied to a version in `from`": the resulting status, or why not:
 * `approval-required` when activation waits for an approval that is required (a Draft or a
 * PendingApproval version), `wrong-state` for every other refusal.
 */
export type TransitionVerdict =
  { allowed: true; to: RuleSetStatus } | { allowed: false; refusal: 'approval-required' | 'wrong-state' };

export function judgeTransition(
  from: RuleSetStatus,
  action: LifecycleAction,
  policy: { requireApproval: boolean },
): TransitionVerdict {
  const transition = VERSION_LIFECYCLE[from]?.[action];
  if (transition && !(transition.onlyWithoutApproval && policy.requireApproval))
    return { allowed: true, to: transition.to };
  const awaitsApproval = from === 'Draft' || from === 'PendingApproval';
  if (action === 'activate' && policy.requireApproval && awaitsApproval)
    return { allowed: false, refusal: 'approval-required' };
  return { allowed: false, refusal: 'wrong-state' };
}

/** The verb of an action in messages ("Cannot reject version 3 …"). */
export function actionVerb(action: LifecycleAction): string {
  return action === 'reject-finally' ? 'reject' : action;
}
