import murmurhash from 'murmurhash';

const encoder = new TextEncoder();
/** Scratch space for the UTF-8 bytes of a key (the hot path hashes once per execution). */
const scratch = new Uint8Array(4096);

/** The UTF-8 bytes of `text`, in the scratch buffer when they fit (no allocation per call). */
function utf8(text: string): Uint8Array {
  if (text.length * 3 > scratch.length) return encoder.encode(text);
  const { written } = encoder.encodeInto(text, scratch);
  return scratch.subarray(0, written);
}

/**
 * The traffic bucket (0..99) of a key for a workflow: `murmur3_32(workflowName + ':' + key, seed 0) % 100`
 * over the UTF-8 bytes. Deterministic across nodes and restarts, so a key stays on the same side of a
 * rollout, and raising the percentage only adds keys (`bucket < percentage` is monotonic).
 */
export function canaryBucket(workflowName: string, key: string): number {
  return murmurhash.v3(utf8(`${workflowName}:${key}`), 0) % 100;
}

/** Whether a key falls in the canary share of a percentage rollout. */
export function inCanaryShare(workflowName: string, key: string, percentage: number): boolean {
  return canaryBucket(workflowName, key) < percentage;
}
