import { decodeSpilledEntry, encodeAuditEntry } from './audit-row';
import type { ExecutionRecord } from './execution-record';
import { tallyRolloutArms } from './rollout-arm-tally';

const ROLLOUT = 'c0a8f0e2-0000-4000-8000-000000000001';
const OTHER = 'c0a8f0e2-0000-4000-8000-000000000002';
let n = 0;
const entry = (overrides: Partial<ExecutionRecord> = {}) =>
  encodeAuditEntry({
    executionId: `019ab5a2-1c2d-7abc-8def-${String(++n).padStart(12, '0')}`,
    tenantId: 'acme',
    workflowName: 'loan-offer',
    version: 1,
    correlationId: `corr-${n}`,
    executedAt: '2026-11-24T17:32:48.060Z',
    executionTimeMs: 0.1,
    rulesMatched: [],
    status: 'success',
    errorCodes: [],
    arm: 'active',
    rolloutId: ROLLOUT,
    mode: 'Rules',
    shadowDiff: null,
    ...overrides,
  });

const rows = (tally: ReturnType<typeof tallyRolloutArms>) =>
  tally &&
  tally.rolloutIds.map((rolloutId, i) => ({
    rolloutId,
    workflowName: tally.workflowNames[i],
    arm: tally.arms[i],
    version: tally.versions[i],
    executions: tally.executions[i],
    errors: tally.errors[i],
  }));

describe('tallyRolloutArms: what a batch adds to the rollout counters', () => {
  it('is null when no entry ran in a rollout', () => {
    expect(tallyRolloutArms([])).toBeNull();
    expect(
      tallyRolloutArms([entry({ rolloutId: null }), entry({ rolloutId: null, arm: 'traditional' })]),
    ).toBeNull();
  });

  it('counts executions and errors per rollout, workflow, arm and version, in order of first appearance', () => {
    const tally = tallyRolloutArms([
      entry(),
      entry({ status: 'error' }),
      entry({ arm: 'canary', version: 2 }),
      entry(), // back to the first counter after another one (a lookup, not a run)
      entry({ rolloutId: null }), // not counted
      entry({ arm: 'canary', version: 2, status: 'error' }),
      entry({ rolloutId: OTHER }),
      entry({ workflowName: 'other-workflow' }),
      entry({ version: 7 }),
      entry({ version: null }),
      entry({ version: null, status: 'error' }),
    ]);
    expect(rows(tally)).toEqual([
      { rolloutId: ROLLOUT, workflowName: 'loan-offer', arm: 'active', version: 1, executions: 3, errors: 1 },
      { rolloutId: ROLLOUT, workflowName: 'loan-offer', arm: 'canary', version: 2, executions: 2, errors: 1 },
      { rolloutId: OTHER, workflowName: 'loan-offer', arm: 'active', version: 1, executions: 1, errors: 0 },
      {
        rolloutId: ROLLOUT,
        workflowName: 'other-workflow',
        arm: 'active',
        version: 1,
        executions: 1,
        errors: 0,
      },
      { rolloutId: ROLLOUT, workflowName: 'loan-offer', arm: 'active', version: 7, executions: 1, errors: 0 },
      {
        rolloutId: ROLLOUT,
        workflowName: 'loan-offer',
        arm: 'active',
        version: null,
        executions: 2,
        errors: 1,
      },
    ]);
  });

  it('counts a long run of one counter as one element', () => {
    const batch = Array.from({ length: 1000 }, (_, i) =>
      entry({ status: i % 10 === 0 ? 'error' : 'success' }),
    );
    expect(rows(tallyRolloutArms(batch))).toEqual([
      {
        rolloutId: ROLLOUT,
        workflowName: 'loan-offer',
        arm: 'active',
        version: 1,
        executions: 1000,
        errors: 100,
      },
    ]);
  });

  it('counts an entry read back from a spill line as the entry it was', () => {
    const original = entry({ arm: 'canary', version: 2, status: 'error' });
    const replayed = decodeSpilledEntry(original.row)!;
    expect(replayed.rolloutArm).toEqual(original.rolloutArm);
    expect(replayed.rolloutArm).toEqual({
      rolloutId: ROLLOUT,
      workflowName: 'loan-offer',
      arm: 'canary',
      version: 2,
      failed: true,
    });
  });
});
