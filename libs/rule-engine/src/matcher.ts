/**
 * Row matching with per-column indexes. Each column keeps, for every input value class, the bit set
 * of rows whose cell can accept it: a hash map for string literals, two sets for booleans, and
 * sorted boundary points for numeric literals and ranges (the number line cut into elementary
 * regions, each with its row set). Rows with `-` or an opaque cell are in every set of that column.
 * Candidates are the AND of the columns' sets; only opaque cells are then tested with their compiled
 * FEEL, so a 1,000-row table tests a handful of rows, not 1,000.
 */
import { Bits, fillBits, newBits, nextBit, orInto, setBit } from './bitset';
import { CellShape, exactNumber } from './cell-shape';

/** Tests one opaque cell (row, column) against its input value; `true` means the cell matches. */
export type CellTest<C> = (row: number, column: number, value: unknown, context: C) => boolean | null;

/**
 * One column's index. Every row set of the column (open rows, one per string literal, true/false, one
 * per numeric region) lives in one Uint32Array `pool`, `words` apart, identical sets stored once;
 * lookups return an offset into it. (One typed array per set cost ~150 bytes of object overhead per
 * set, more than the bits of a 100-row table.)
 */
class ColumnIndex {
  readonly pool: Uint32Array;
  private readonly words: number;
  private readonly strings = new Map<string, number>();
  private readonly trueRows: number;
  private readonly falseRows: number;
  private readonly points: Float64Array;
  /** offsets of the numeric regions: 2i+1 is point i, 2i the open gap below it, 2k above all */
  private readonly regions: Int32Array;
  /** false when every cell is `-` or opaque: the column narrows nothing */
  readonly useful: boolean;

  constructor(shapes: CellShape[], size: number) {
    const words = (this.words = (size + 31) >>> 5);
    const open = newBits(size);
    shapes.forEach((s, r) => {
      if (s.kind === 'any' || s.kind === 'opaque') setBit(open, r);
    });
    this.useful = shapes.some((s) => s.kind !== 'any' && s.kind !== 'opaque');
    // sets under construction; packed (and deduplicated) into the pool at the end
    const sets: Bits[] = [open];
    const withOpen = () => {
      const b = newBits(size);
      orInto(b, open);
      sets.push(b);
      return sets.length - 1;
    };
    const strings = new Map<string, number>();
    let trueRows = 0;
    let falseRows = 0;
    const points = new Set<number>();
    shapes.forEach((s, r) => {
      if (s.kind === 'strings') {
        for (const v of s.values) {
          let b = strings.get(v);
          if (b === undefined) strings.set(v, (b = withOpen()));
          setBit(sets[b], r);
        }
      } else if (s.kind === 'booleans') {
        for (const v of s.values) {
          if (v) {
            if (trueRows === 0) trueRows = withOpen();
            setBit(sets[trueRows], r);
          } else {
            if (falseRows === 0) falseRows = withOpen();
            setBit(sets[falseRows], r);
          }
        }
      } else if (s.kind === 'numbers') {
        for (const i of s.intervals) {
          if (Number.isFinite(i.lo)) points.add(i.lo);
          if (Number.isFinite(i.hi)) points.add(i.hi);
        }
      }
    });
    let regions: number[] = [];
    this.points = new Float64Array(0);
    if (shapes.some((s) => s.kind === 'numbers')) {
      this.points = Float64Array.from([...points].sort((a, b) => a - b));
      const k = this.points.length;
      regions = Array.from({ length: 2 * k + 1 }, withOpen);
      const at = (x: number) => this.pointIndex(x);
      shapes.forEach((s, r) => {
        if (s.kind !== 'numbers') return;
        for (const i of s.intervals) {
          const from = i.lo === -Infinity ? 0 : 2 * at(i.lo) + (i.loIncl ? 1 : 2);
          const to = i.hi === Infinity ? 2 * k : 2 * at(i.hi) + (i.hiIncl ? 1 : 0);
          for (let g = from; g <= to; g++) setBit(sets[regions[g]], r);
        }
      });
    }
    // pack: identical sets (neighbouring regions often are) share one slot
    const slotOf = new Map<string, number>();
    const offsets = new Int32Array(sets.length);
    const unique: Bits[] = [];
    sets.forEach((bits, i) => {
      const key = bits.join(',');
      let slot = slotOf.get(key);
      if (slot === undefined) {
        slotOf.set(key, (slot = unique.length));
        unique.push(bits);
      }
      offsets[i] = slot * words;
    });
    this.pool = new Uint32Array(unique.length * words);
    unique.forEach((bits, slot) => this.pool.set(bits, slot * words));
    for (const [v, b] of strings) this.strings.set(v, offsets[b]);
    this.trueRows = offsets[trueRows];
    this.falseRows = offsets[falseRows];
    this.regions = Int32Array.from(regions, (b) => offsets[b]);
  }

  private pointIndex(x: number): number {
    let lo = 0;
    let hi = this.points.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const p = this.points[mid];
      if (p === x) return mid;
      if (p < x) lo = mid + 1;
      else hi = mid - 1;
    }
    return -1 - lo; // not found: -(insertion point) - 1
  }

  /** Offset in `pool` of the rows whose cell may accept the value, or -1 when the value defeats the index. */
  lookup(value: unknown): number {
    switch (typeof value) {
      case 'string':
        return this.strings.get(value) ?? 0;
      case 'boolean':
        return value ? this.trueRows : this.falseRows;
      case 'number':
        return this.numeric(value);
      case 'object': {
        if (value === null) return 0;
        if (this.regions.length === 0) return 0;
        const n = exactNumber(value);
        if (n !== null) return this.numeric(n);
        // a Decimal that no double represents exactly: test every cell of this column
        return typeof (value as { toFixed?: unknown }).toFixed === 'function' ? -1 : 0;
      }
      default:
        return 0;
    }
  }

  private numeric(x: number): number {
    if (this.regions.length === 0) return 0;
    if (x !== x) return 0;
    const i = this.pointIndex(x);
    return this.regions[i >= 0 ? 2 * i + 1 : 2 * (-1 - i)];
  }
}

const NO_COLUMNS = new Int32Array(0);

export class RowMatcher<C = unknown> {
  private readonly columns: (ColumnIndex | null)[];
  private readonly candidates: Bits;
  private readonly all: Bits;
  /** per row, the columns holding an opaque cell (tested with FEEL) */
  private readonly opaque: Int32Array[];
  /** per row and column, whether the cell is `-` */
  private readonly anyCell: Uint8Array;
  private readonly fallback: Uint8Array;
  private readonly matched: Int32Array;

  constructor(
    readonly shapes: CellShape[][],
    readonly columnCount: number,
    private readonly test: CellTest<C>,
  ) {
    const size = shapes.length;
    this.all = newBits(size);
    fillBits(this.all, size);
    this.candidates = newBits(size);
    this.matched = new Int32Array(size);
    this.fallback = new Uint8Array(columnCount);
    this.anyCell = new Uint8Array(size * columnCount);
    this.opaque = shapes.map((row, r) => {
      const cols: number[] = [];
      for (let c = 0; c < columnCount; c++) {
        const kind = row[c]?.kind ?? 'any';
        if (kind === 'opaque') cols.push(c);
        if (kind === 'any') this.anyCell[r * columnCount + c] = 1;
      }
      return cols.length ? Int32Array.from(cols) : NO_COLUMNS;
    });
    this.columns = [];
    for (let c = 0; c < columnCount; c++) {
      const index = new ColumnIndex(
        shapes.map((row) => row[c] ?? { kind: 'any' }),
        size,
      );
      this.columns.push(index.useful ? index : null);
    }
  }

  get rowCount(): number {
    return this.shapes.length;
  }

  private depth = 0;

  /** Scratch sets are reused; a re-entrant call (a cell calling back into this table) gets fresh ones. */
  private scratch(): { cand: Bits; fallback: Uint8Array } {
    return this.depth === 1
      ? { cand: this.candidates, fallback: this.fallback }
      : { cand: newBits(this.shapes.length), fallback: new Uint8Array(this.columnCount) };
  }

  private narrow(values: ArrayLike<unknown>, cand: Bits, fallback: Uint8Array): boolean {
    cand.set(this.all);
    let fallbacks = false;
    for (let c = 0; c < this.columnCount; c++) {
      const index = this.columns[c];
      if (index === null) continue;
      const offset = index.lookup(values[c]);
      if (offset < 0) {
        fallback[c] = 1;
        fallbacks = true;
        continue;
      }
      const pool = index.pool;
      for (let w = 0; w < cand.length; w++) cand[w] &= pool[offset + w];
    }
    return fallbacks;
  }

  private rowPasses(r: number, values: ArrayLike<unknown>, context: C, fallback: Uint8Array | null): boolean {
    const cols = this.opaque[r];
    for (let k = 0; k < cols.length; k++) {
      const c = cols[k];
      if (this.test(r, c, values[c], context) !== true) return false;
    }
    if (fallback !== null) {
      const base = r * this.columnCount;
      for (let c = 0; c < this.columnCount; c++) {
        if (fallback[c] === 0 || this.anyCell[base + c] === 1) continue;
        if (this.shapes[r][c].kind === 'opaque') continue; // already tested
        if (this.test(r, c, values[c], context) !== true) return false;
      }
    }
    return true;
  }

  /** Index of the first matching row, or -1. */
  first(values: ArrayLike<unknown>, context: C): number {
    this.depth++;
    const { cand, fallback } = this.scratch();
    try {
      const fb = this.narrow(values, cand, fallback) ? fallback : null;
      for (let r = nextBit(cand, 0); r >= 0; r = nextBit(cand, r + 1)) {
        if (this.rowPasses(r, values, context, fb)) return r;
      }
      return -1;
    } finally {
      fallback.fill(0);
      this.depth--;
    }
  }

  /**
   * Every matching row in rule order, written into a scratch array that is reused by the next call
   * (copy what you keep). Returns the array and the count.
   */
  collect(values: ArrayLike<unknown>, context: C): { rows: Int32Array; count: number } {
    this.depth++;
    const { cand, fallback } = this.scratch();
    const rows = this.depth === 1 ? this.matched : new Int32Array(this.shapes.length);
    try {
      const fb = this.narrow(values, cand, fallback) ? fallback : null;
      let count = 0;
      for (let r = nextBit(cand, 0); r >= 0; r = nextBit(cand, r + 1)) {
        if (this.rowPasses(r, values, context, fb)) rows[count++] = r;
      }
      return { rows, count };
    } finally {
      fallback.fill(0);
      this.depth--;
    }
  }

  /** Every matching row index in rule order (a new array). */
  matchAll(values: ArrayLike<unknown>, context: C): number[] {
    const { rows, count } = this.collect(values, context);
    return Array.from(rows.subarray(0, count));
  }
}
