import murmurhash from 'murmurhash';

/**
 * The traffic bucket (0..99) of a key for a workflow: `murmur3_32(workflowName + ':' + key, seed 0) % 100`
 * over the UTF-8 bytes. Deterministic across nodes and restarts, so a key stays on the same side of a
 * rollout, and raising the percentage only adds keys (`bucket < percentage` is monotonic).
 */
export function canaryBucket(workflowName: string, key: string): number {
  return murmurhash.v3(`${workflowName}:${key}`, 0) % 100;
}

/** Whether a key falls in the canary share of a percentage rollout. */
export function inCanaryShare(workflowName: string, key: string, percentage: number): boolean {
  return canaryBucket(workflowName, key) < percentage;
}
