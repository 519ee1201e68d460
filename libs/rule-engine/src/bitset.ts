/** Fixed-size bit sets over row indexes, as plain Uint32Arrays (bit r of word r >>> 5). */
export type Bits = Uint32Array;

export function newBits(size: number): Bits {
  return new Uint32Array((size + 31) >>> 5);
}

export function setBit(bits: Bits, index: number): void {
  bits[index >>> 5] |= 1 << (index & 31);
}

export function hasBit(bits: Bits, index: number): boolean {
  return (bits[index >>> 5] & (1 << (index & 31))) !== 0;
}

export function orInto(target: Bits, source: Bits): void {
  for (let i = 0; i < target.length; i++) target[i] |= source[i];
}

export function fillBits(bits: Bits, size: number): void {
  bits.fill(0xffffffff);
  const rest = size & 31;
  if (rest) bits[bits.length - 1] = (1 << rest) - 1 || 0xffffffff;
}

/** Index of the lowest set bit at or after `from`, or -1. */
export function nextBit(bits: Bits, from: number): number {
  let w = from >>> 5;
  if (w >= bits.length) return -1;
  let word = bits[w] & (0xffffffff << (from & 31));
  for (;;) {
    if (word !== 0) return (w << 5) + (31 - Math.clz32(word & -word));
    if (++w >= bits.length) return -1;
    word = bits[w];
  }
}
