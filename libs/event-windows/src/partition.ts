/**
 * The partition of a correlation key: 32-bit FNV-1a of its UTF-16 code units, modulo `partitions`. Every
 * replica computes the same partition for a key, so one replica holds all of a key's windows.
 */
export function partitionOf(key: string, partitions: number): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) {
    h ^= key.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0) % partitions;
}
