import type { EncodedAuditEntry, RolloutArmOfEntry } from './audit-row';

/**
 * What a batch of one tenant adds to `rollout_arm_counts`, one element per counter (the columns of an
 * `unnest` of six arrays). Entries of no rollout are not counted.
 */
export interface RolloutArmTally {
  rolloutIds: string[];
  workflowNames: string[];
  arms: string[];
  versions: (number | null)[];
  executions: number[];
  errors: number[];
}

const sameCounter = (a: RolloutArmOfEntry, b: RolloutArmOfEntry) =>
  a === b ||
  (a.rolloutId === b.rolloutId &&
    a.workflowName === b.workflowName &&
    a.arm === b.arm &&
    a.version === b.version);

/**
 * Executions and errors per rollout, workflow, arm and version of the entries; null when none ran in a
 * rollout. Runs of entries of the same counter (the usual case: a rollout's control arm) are counted
 * without a lookup.
 */
export function tallyRolloutArms(entries: readonly EncodedAuditEntry[]): RolloutArmTally | null {
  let tally: RolloutArmTally | null = null;
  const counters = new Map<string, number>();
  let previous: RolloutArmOfEntry | null = null;
  let index = -1;
  for (const entry of entries) {
    const arm = entry.rolloutArm;
    if (arm === null) continue;
    if (previous === null || !sameCounter(previous, arm)) {
      tally ??= { rolloutIds: [], workflowNames: [], arms: [], versions: [], executions: [], errors: [] };
      const key = `${arm.rolloutId}\n${arm.workflowName}\n${arm.arm}\n${arm.version}`;
      const known = counters.get(key);
      if (known === undefined) {
        index = tally.rolloutIds.length;
        counters.set(key, index);
        tally.rolloutIds.push(arm.rolloutId);
        tally.workflowNames.push(arm.workflowName);
        tally.arms.push(arm.arm);
        tally.versions.push(arm.version);
        tally.executions.push(0);
        tally.errors.push(0);
      } else index = known;
      previous = arm;
    }
    tally!.executions[index]++;
    if (arm.failed) tally!.errors[index]++;
  }
  return tally;
}
