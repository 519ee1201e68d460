/**
 * Row matching with per-column indexes. Each column keeps, for every input value class, the bit set
 * of rows whose cell can accept it: a hash map for string literals, two sets for booleans, and
 * sorted boundary points for numeric literals and ranges (the number line cut into elementary
 * regions, each with its row set). Rows with `-` or an opaque cell are in every set of that column.
 * Candidates are the AND of the columns' sets; only opaque cells are then tested with their compiled
 * FEEL, so a 1,000-row table tests a handful of rows, not 1,000.
 */
import { Bits, fillBits, newBits, nextBit, setBit } from './bitset';
import { CellShape, Interval, exactNumber } from './cell-shape';
import { runToEnd, STEP_EVERY, Steps } from './yielding';

const ANY: CellShape = Object.freeze({ kind: 'any' as const });
/** rows or regions between two pauses of a column index build (a power of two, less one) */
const PAUSE_EVERY = 2047;
/** Words of row sets written between two pauses of an index build. */
const PAUSE_WORDS = 256 * 1024;

/** Tests one opaque cell (row, column) against its input value; `true` means the cell matches. */
export type CellTest<C> = (row: number, column: number, value: unknown, context: C) => boolean | null;

/** Words of dense row sets one column keeps at most, beyond its size-proportional share (see ColumnIndex). */
const DENSE_WORDS = 65_536;

/**
 * One column's index. Row sets (open rows, one per string literal, true/false, numeric regions) live in
 * one Uint32Array `pool`, `words` apart; lookups return an offset into it. (One typed array per set cost
 * ~150 bytes of object overhead per set, more than the bits of a 100-row table.)
 *
 * Built in O(n log n + kept words): numeric cells cut the number line into 2k+1 elementary regions
 * (k distinct bounds), and a sweep over the regions, toggling the rows whose (merged) intervals start or
 * end there, writes their sets. A small column keeps every region's set (lookup = one offset); a large
 * one keeps a checkpoint every `stride` regions plus the toggles between them, and a lookup rebuilds its
 * region's set in the pool's last slot (scratch: `narrow` reads it at once, no user code runs between).
 * String literals likewise: dense sets while they fit, else each literal's row list over the open rows.
 * The dense share of a column is at most DENSE_WORDS + 16 words per row, so a 100,000-row table does not
 * hold (regions × rows) bits.
 */
class ColumnIndex {
  pool!: Uint32Array;
  private words!: number;
  private scratch!: number;
  private open!: number;
  private readonly strings = new Map<string, number>();
  /** sparse strings: each literal's rows (added to the open rows at lookup) */
  private stringRows!: Map<string, Int32Array> | null;
  private trueRows!: number;
  private falseRows!: number;
  private points!: Float64Array;
  /** regions: 2i+1 is point i, 2i the open gap below it, 2k above all; offset of every stride-th region */
  private regions!: Int32Array;
  private stride!: number;
  /** toggled rows at each region (CSR: rows toggleRows[toggleStart[g] .. toggleStart[g+1]) */
  private toggleStart!: Int32Array;
  private toggleRows!: Int32Array;
  /** false when every cell is `-` or opaque: the column narrows nothing */
  useful!: boolean;

  private constructor() {}

  /** The index of one column, built in steps (a pause every few thousand rows or regions). */
  static *build(shapes: CellShape[], size: number): Steps<ColumnIndex> {
    const index = new ColumnIndex();
    yield* index.fill(shapes, size);
    return index;
  }

  private *fill(shapes: CellShape[], size: number): Steps<void> {
    const words = (this.words = (size + 31) >>> 5);
    const budget = DENSE_WORDS + 16 * size;
    const slots: Bits[] = [];
    const slot = (bits: Bits) => slots.push(bits) - 1;
    const open = newBits(size);
    let useful = false;
    let hasNumbers = false;
    let hasBooleans = false;
    const stringRows = new Map<string, number[]>();
    for (let r = 0; r < shapes.length; r++) {
      if ((r & PAUSE_EVERY) === PAUSE_EVERY) yield;
      const s = shapes[r];
      if (s.kind === 'any' || s.kind === 'opaque') setBit(open, r);
      else useful = true;
      if (s.kind === 'numbers') hasNumbers = true;
      else if (s.kind === 'booleans') hasBooleans = true;
      else if (s.kind === 'strings')
        for (const v of s.values) {
          const rows = stringRows.get(v);
          if (rows === undefined) stringRows.set(v, [r]);
          else if (rows[rows.length - 1] !== r) rows.push(r);
        }
    }
    this.useful = useful;
    this.open = slot(open);
    const withOpen = (rows: Iterable<number>) => {
      const b = open.slice();
      for (const r of rows) setBit(b, r);
      return b;
    };
    // strings: dense while they fit
    this.stringRows = null;
    const dense = stringRows.size * words <= budget;
    if (dense) {
      // one set of every row per literal: a pause every few (100,000 rows: 12 KiB each, and its rows)
      let written = 0;
      for (const [v, rows] of stringRows) {
        this.strings.set(v, slot(withOpen(rows)));
        written += words + rows.length;
        if (written > PAUSE_WORDS) {
          written = 0;
          yield;
        }
      }
    } else {
      this.stringRows = new Map();
      for (const [v, rows] of stringRows) this.stringRows.set(v, Int32Array.from(rows));
    }
    // booleans
    this.trueRows = this.falseRows = this.open;
    if (hasBooleans) {
      const t: number[] = [];
      const f: number[] = [];
      for (let r = 0; r < shapes.length; r++) {
        const s = shapes[r];
        if (s.kind !== 'booleans') continue;
        if (s.values.includes(true)) t.push(r);
        if (s.values.includes(false)) f.push(r);
      }
      this.trueRows = slot(withOpen(t));
      this.falseRows = slot(withOpen(f));
    }
    // numbers: the sweep
    this.points = new Float64Array(0);
    this.regions = new Int32Array(0);
    this.stride = 1;
    this.toggleStart = this.toggleRows = new Int32Array(0);
    if (hasNumbers) {
      // the distinct finite bounds (most rows share theirs), then sorted in steps
      const bounds = new Set<number>();
      let eventCount = 0;
      for (let r = 0; r < shapes.length; r++) {
        if ((r & PAUSE_EVERY) === PAUSE_EVERY) yield;
        const s = shapes[r];
        if (s.kind !== 'numbers') continue;
        eventCount += 2 * s.intervals.length;
        for (const i of s.intervals) {
          if (Number.isFinite(i.lo)) bounds.add(i.lo === 0 ? 0 : i.lo); // -0 is 0
          if (Number.isFinite(i.hi)) bounds.add(i.hi === 0 ? 0 : i.hi);
        }
      }
      yield;
      this.points = yield* sortedSteps(Float64Array.from(bounds));
      const k = this.points.length;
      yield;
      const regionCount = 2 * k + 1;
      // each row's intervals as merged region ranges; a toggle where a range starts and after it ends
      const counts = new Int32Array(regionCount + 1);
      const eventRegion = new Int32Array(eventCount);
      const eventRow = new Int32Array(eventCount);
      let events = 0;
      const emit = (from: number, to: number, r: number) => {
        eventRegion[events] = from;
        eventRow[events++] = r;
        counts[from]++;
        if (to + 1 < regionCount) {
          eventRegion[events] = to + 1;
          eventRow[events++] = r;
          counts[to + 1]++;
        }
      };
      const regionFrom = (i: Interval) =>
        i.lo === -Infinity ? 0 : 2 * this.pointIndex(i.lo) + (i.loIncl ? 1 : 2);
      const regionTo = (i: Interval) =>
        i.hi === Infinity ? 2 * k : 2 * this.pointIndex(i.hi) + (i.hiIncl ? 1 : 0);
      yield;
      for (let r = 0; r < shapes.length; r++) {
        if ((r & PAUSE_EVERY) === PAUSE_EVERY) yield;
        const s = shapes[r];
        if (s.kind !== 'numbers') continue;
        if (s.intervals.length === 1) {
          const from = regionFrom(s.intervals[0]);
          const to = regionTo(s.intervals[0]);
          if (from <= to) emit(from, to, r);
          continue;
        }
        const ranges = s.intervals
          .map((i) => [regionFrom(i), regionTo(i)])
          .filter(([from, to]) => from <= to)
          .sort((a, b) => a[0] - b[0]);
        let from = -1;
        let to = -2;
        for (const range of ranges) {
          if (from >= 0 && range[0] <= to + 1) to = Math.max(to, range[1]);
          else {
            if (from >= 0) emit(from, to, r);
            from = range[0];
            to = range[1];
          }
        }
        if (from >= 0) emit(from, to, r);
      }
      const toggleStart = new Int32Array(regionCount + 1);
      for (let g = 0; g < regionCount; g++) toggleStart[g + 1] = toggleStart[g] + counts[g];
      const toggleRows = new Int32Array(events);
      const fill = toggleStart.slice(0, regionCount);
      for (let e = 0; e < events; e++) toggleRows[fill[eventRegion[e]]++] = eventRow[e];
      const stride = (this.stride = Math.max(1, Math.ceil((regionCount * words) / budget)));
      if (stride > 1) {
        this.toggleStart = toggleStart;
        this.toggleRows = toggleRows;
      }
      const regions = new Int32Array(Math.ceil(regionCount / stride));
      const bits = open.slice();
      let last: Bits | null = null;
      let lastSlot = -1;
      yield;
      for (let g = 0; g < regionCount; g++) {
        if ((g & PAUSE_EVERY) === PAUSE_EVERY) yield;
        for (let t = toggleStart[g]; t < toggleStart[g + 1]; t++) {
          const r = toggleRows[t];
          bits[r >>> 5] ^= 1 << (r & 31);
        }
        if (g % stride !== 0) continue;
        // neighbouring regions often hold the same rows: one slot for both
        if (last === null || !sameBits(last, bits)) {
          last = bits.slice();
          lastSlot = slot(last);
        }
        regions[g / stride] = lastSlot;
      }
      this.regions = regions;
    }
    // pack, with one scratch slot at the end
    this.scratch = slots.length * words;
    this.pool = new Uint32Array((slots.length + 1) * words);
    slots.forEach((bits, i) => this.pool.set(bits, i * words));
    this.open *= words;
    for (const [v, i] of this.strings) this.strings.set(v, i * words);
    this.trueRows *= words;
    this.falseRows *= words;
    for (let g = 0; g < this.regions.length; g++) this.regions[g] *= words;
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
        return this.stringRows === null ? (this.strings.get(value) ?? this.open) : this.sparse(value);
      case 'boolean':
        return value ? this.trueRows : this.falseRows;
      case 'number':
        return this.numeric(value);
      case 'object': {
        if (value === null) return this.open;
        if (this.regions.length === 0) return this.open;
        const n = exactNumber(value);
        if (n !== null) return this.numeric(n);
        // a Decimal that no double represents exactly: test every cell of this column
        return typeof (value as { toFixed?: unknown }).toFixed === 'function' ? -1 : this.open;
      }
      default:
        return this.open;
    }
  }

  private sparse(value: string): number {
    const rows = this.stringRows!.get(value);
    if (rows === undefined) return this.open;
    const pool = this.pool;
    const at = this.scratch;
    pool.copyWithin(at, this.open, this.open + this.words);
    for (let i = 0; i < rows.length; i++) pool[at + (rows[i] >>> 5)] |= 1 << (rows[i] & 31);
    return at;
  }

  private numeric(x: number): number {
    if (this.regions.length === 0) return this.open;
    if (x !== x) return this.open;
    const i = this.pointIndex(x);
    const g = i >= 0 ? 2 * i + 1 : 2 * (-1 - i);
    const stride = this.stride;
    if (stride === 1) return this.regions[g];
    // rebuild the region's set from the checkpoint before it
    const c = (g / stride) | 0;
    const from = this.regions[c];
    if (g === c * stride) return from;
    const pool = this.pool;
    const at = this.scratch;
    pool.copyWithin(at, from, from + this.words);
    const start = this.toggleStart;
    const rows = this.toggleRows;
    for (let t = start[c * stride + 1]; t < start[g + 1]; t++) {
      const r = rows[t];
      pool[at + (r >>> 5)] ^= 1 << (r & 31);
    }
    return at;
  }
}

function sameBits(a: Bits, b: Bits): boolean {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

const NO_COLUMNS = new Int32Array(0);

/**
 * Tables of at most this many rows are matched by a plain row loop over the cells' shapes (no index):
 * below it, building and ANDing the columns' row sets costs more than testing each cell (measured with
 * bench/decision-tables/sizes.js against closures compiled from the same cells).
 */
export const SCAN_MAX_ROWS = 16;

/** Whether a simple cell accepts the value: 1 yes, 0 no, -1 only its FEEL can tell (an inexact decimal). */
function cellAccepts(shape: CellShape, value: unknown): number {
  switch (shape.kind) {
    case 'strings':
      return typeof value === 'string' && shape.values.includes(value) ? 1 : 0;
    case 'booleans':
      return typeof value === 'boolean' && shape.values.includes(value) ? 1 : 0;
    case 'numbers': {
      let x: number;
      if (typeof value === 'number') x = value;
      else if (typeof value === 'object' && value !== null) {
        const n = exactNumber(value);
        if (n === null) return typeof (value as { toFixed?: unknown }).toFixed === 'function' ? -1 : 0;
        x = n;
      } else return 0;
      const intervals = shape.intervals;
      for (let i = 0; i < intervals.length; i++) {
        const v = intervals[i];
        if ((x > v.lo || (v.loIncl && x === v.lo)) && (x < v.hi || (v.hiIncl && x === v.hi))) return 1;
      }
      return 0;
    }
    default:
      return 1;
  }
}

/** How the scan tests one cell (`ScanCell.op`). */
const EQUALS = 0; // one string or boolean literal: the value is that literal (===)
const RANGE = 1; // one numeric interval: a number inside it (other values: `cellAccepts`)
const SHAPE = 2; // any other simple cell: `cellAccepts`
const OPAQUE = 3; // only its FEEL can tell

/**
 * One cell of a small table as the scan tests it, prepared once: the `-` cells are left out, and the
 * commonest cells (one literal, one interval) are compared inline instead of through their shape.
 */
interface ScanCell {
  column: number;
  op: number;
  literal: unknown;
  lo: number;
  hi: number;
  loIncl: boolean;
  hiIncl: boolean;
  shape: CellShape;
}

function scanCellsOf(row: CellShape[], columnCount: number): ScanCell[] {
  const cells: ScanCell[] = [];
  for (let column = 0; column < columnCount; column++) {
    const shape = row[column];
    if (shape === undefined || shape.kind === 'any') continue;
    const cell: ScanCell = {
      column,
      op: SHAPE,
      literal: null,
      lo: 0,
      hi: 0,
      loIncl: false,
      hiIncl: false,
      shape,
    };
    if (shape.kind === 'opaque') cell.op = OPAQUE;
    else if ((shape.kind === 'strings' || shape.kind === 'booleans') && shape.values.length === 1) {
      cell.op = EQUALS;
      cell.literal = shape.values[0];
    } else if (shape.kind === 'numbers' && shape.intervals.length === 1) {
      const [i] = shape.intervals;
      cell.op = RANGE;
      cell.lo = i.lo;
      cell.hi = i.hi;
      cell.loIncl = i.loIncl;
      cell.hiIncl = i.hiIncl;
    }
    cells.push(cell);
  }
  return cells;
}

/** What a RowMatcher is built from, made in steps (`rowMatcherSteps`: a pause every rows slice and column). */
export interface RowMatcherParts {
  opaque: Int32Array[];
  anyCell: Uint8Array;
  columns: (ColumnIndex | null)[];
}

export function* rowMatcherSteps(shapes: CellShape[][], columnCount: number): Steps<RowMatcherParts> {
  const size = shapes.length;
  const anyCell = new Uint8Array(size * columnCount);
  const opaque = new Array<Int32Array>(size);
  for (let r = 0; r < size; r++) {
    const row = shapes[r];
    const cols: number[] = [];
    for (let c = 0; c < columnCount; c++) {
      const kind = row[c]?.kind ?? 'any';
      if (kind === 'opaque') cols.push(c);
      if (kind === 'any') anyCell[r * columnCount + c] = 1;
    }
    opaque[r] = cols.length ? Int32Array.from(cols) : NO_COLUMNS;
    if (r % (4 * STEP_EVERY) === 4 * STEP_EVERY - 1) yield;
  }
  const columns: (ColumnIndex | null)[] = [];
  for (let c = 0; c < columnCount && size > SCAN_MAX_ROWS; c++) {
    const column = new Array<CellShape>(size);
    for (let r = 0; r < size; r++) {
      if ((r & PAUSE_EVERY) === PAUSE_EVERY) yield;
      column[r] = shapes[r][c] ?? ANY;
    }
    yield;
    const index = yield* ColumnIndex.build(column, size);
    columns.push(index.useful ? index : null);
    yield;
  }
  return { opaque, anyCell, columns };
}

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
  /** a small table: a row loop over the cells instead of the index (SCAN_MAX_ROWS) */
  private readonly scan: boolean;
  /** per row of a small table, its cells other than `-` as the scan tests them */
  private readonly scanCells: ScanCell[][];
  private readonly size: number;

  constructor(
    readonly shapes: CellShape[][],
    readonly columnCount: number,
    private readonly test: CellTest<C>,
    prebuilt?: RowMatcherParts,
  ) {
    const size = (this.size = shapes.length);
    this.scan = size <= SCAN_MAX_ROWS;
    this.scanCells = this.scan ? shapes.map((row) => scanCellsOf(row, columnCount)) : [];
    this.all = newBits(size);
    fillBits(this.all, size);
    this.candidates = newBits(size);
    this.matched = new Int32Array(size);
    this.fallback = new Uint8Array(columnCount);
    const parts = prebuilt ?? runToEnd(rowMatcherSteps(shapes, columnCount));
    this.anyCell = parts.anyCell;
    this.opaque = parts.opaque;
    this.columns = parts.columns;
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

  /** Whether row `r` matches, cell by cell (the scan of a small table). */
  private rowMatches(r: number, values: ArrayLike<unknown>, context: C): boolean {
    const cells = this.scanCells[r];
    for (let k = 0; k < cells.length; k++) {
      const cell = cells[k];
      const value = values[cell.column];
      const op = cell.op;
      if (op === EQUALS) {
        if (value !== cell.literal) return false;
        continue;
      }
      if (op === RANGE && typeof value === 'number') {
        const x = value;
        if (!(
          (x > cell.lo || (cell.loIncl && x === cell.lo)) &&
          (x < cell.hi || (cell.hiIncl && x === cell.hi))
        ))
          return false;
        continue;
      }
      const accepts = op === OPAQUE ? -1 : cellAccepts(cell.shape, value);
      if (accepts === 0) return false;
      if (accepts === -1 && this.test(r, cell.column, value, context) !== true) return false;
    }
    return true;
  }

  /** Index of the first matching row, or -1. */
  first(values: ArrayLike<unknown>, context: C): number {
    if (this.scan) {
      for (let r = 0; r < this.size; r++) if (this.rowMatches(r, values, context)) return r;
      return -1;
    }
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
    if (this.scan) {
      const rows = this.depth === 0 ? this.matched : new Int32Array(this.size);
      this.depth++;
      let count = 0;
      try {
        for (let r = 0; r < this.size; r++) if (this.rowMatches(r, values, context)) rows[count++] = r;
      } finally {
        this.depth--;
      }
      return { rows, count };
    }
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

/** Values sorted by `TypedArray.sort` at once, at most; longer arrays are sorted in runs and merged. */
const SORT_RUN = 8192;

/**
 * `values` sorted ascending (numbers, no NaN), in steps: runs of SORT_RUN sorted each at once, then merged
 * pairwise, a pause after every run and every SORT_RUN values merged. The same order as `values.sort()`.
 */
export function* sortedSteps(values: Float64Array<ArrayBuffer>): Steps<Float64Array<ArrayBuffer>> {
  const n = values.length;
  for (let from = 0; from < n; from += SORT_RUN) {
    values.subarray(from, Math.min(n, from + SORT_RUN)).sort();
    yield;
  }
  let source = values;
  let target = new Float64Array(n);
  for (let width = SORT_RUN; width < n; width *= 2) {
    let merged = 0;
    for (let lo = 0; lo < n; lo += 2 * width) {
      const mid = Math.min(n, lo + width);
      const hi = Math.min(n, lo + 2 * width);
      let i = lo;
      let j = mid;
      for (let out = lo; out < hi; out++) {
        target[out] = j >= hi || (i < mid && source[i] <= source[j]) ? source[i++] : source[j++];
        if (++merged === SORT_RUN) {
          merged = 0;
          yield;
        }
      }
    }
    [source, target] = [target, source];
  }
  return source;
}
