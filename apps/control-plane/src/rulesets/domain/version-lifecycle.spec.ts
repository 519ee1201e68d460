import {
  judgeTransition,
  LIFECYCLE_ACTIONS,
  LifecycleAction,
  RULE_SET_STATUSES,
  RuleSetStatus,
  TransitionVerdict,
} from './version-lifecycle';

const allowed = (to: RuleSetStatus): TransitionVerdict => ({ allowed: true, to });
const WRONG: TransitionVerdict = { allowed: false, refusal: 'wrong-state' };
const AWAITS_APPROVAL: TransitionVerdict = { allowed: false, refusal: 'approval-required' };

/** Every status × action, with approval required and without; anything not listed is a wrong state. */
const EXPECTED: Record<
  'approval required' | 'approval off',
  Partial<Record<RuleSetStatus, Partial<Record<LifecycleAction, TransitionVerdict>>>>
> = {
  'approval required': {
    Draft: { submit: allowed('PendingApproval'), activate: AWAITS_APPROVAL, discard: allowed('Rejected') },
    PendingApproval: {
      approve: allowed('Approved'),
      reject: allowed('Draft'),
      'reject-finally': allowed('Rejected'),
      activate: AWAITS_APPROVAL,
    },
    Approved: { activate: allowed('Active') },
    Active: { archive: allowed('Archived') },
  },
  'approval off': {
    Draft: {
      submit: allowed('PendingApproval'),
      activate: allowed('Active'),
      discard: allowed('Rejected'),
    },
    PendingApproval: {
      approve: allowed('Approved'),
      reject: allowed('Draft'),
      'reject-finally': allowed('Rejected'),
    },
    Approved: { activate: allowed('Active') },
    Active: { archive: allowed('Archived') },
  },
};

describe('version lifecycle', () => {
  for (const mode of ['approval required', 'approval off'] as const) {
    const requireApproval = mode === 'approval required';
    describe(mode, () => {
      const cases = RULE_SET_STATUSES.flatMap((status) =>
        LIFECYCLE_ACTIONS.map((action) => [status, action] as const),
      );
      it.each(cases)('%s × %s', (status, action) => {
        expect(judgeTransition(status, action, { requireApproval })).toEqual(
          EXPECTED[mode][status]?.[action] ?? WRONG,
        );
      });
    });
  }

  it('has no way out of Archived or Rejected', () => {
    for (const status of ['Archived', 'Rejected'] as const)
      for (const action of LIFECYCLE_ACTIONS)
        for (const requireApproval of [true, false])
          expect(judgeTransition(status, action, { requireApproval }).allowed).toBe(false);
  });
});
