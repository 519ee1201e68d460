/**
 * Static analysis of a compiled table: overlapping rows, input coverage gaps (with an example input
 * no row matches) and rows made redundant by an earlier row under `First`. Works on cell shapes
 * (`-`, string/boolean literal sets, numeric interval unions); opaque FEEL cells are treated as
 * "may match anything" for gaps and skipped for overlaps/redundancy, and the result says so.
 */
import { CellShape, Interval, shapeAccepts } from './cell-shape';
import { ColumnType } from './types';

export interface Overlap {
  rowIds: [string, string];
  /** columns that take part in the overlap (every input column must intersect) */
  columns: string[];
}
export interface Gap {
  /** an input no row matches */
  example: Record<string, unknown>;
  description: string;
}
export interface Redundancy {
  rowId: string;
  subsumedBy: string;
}
export interface AnalysisResult {
  /** the first `MAX_REPORTED_OVERLAPS` overlapping pairs (`overlapCount` has them all) */
  overlaps: Overlap[];
  /** every overlapping pair of rows, also those past the list's cut */
  overlapCount: number;
  /** true when `overlaps` lists fewer pairs than `overlapCount` */
  overlapsTruncated: boolean;
  /** the first `MAX_REPORTED_GAPS` gaps found */
  gaps: Gap[];
  /** true when the search found more gaps than `gaps` lists */
  gapsTruncated: boolean;
  /** every row some earlier row subsumes (never cut) */
  redundantRows: Redundancy[];
  /** false when opaque cells or the search budget limit what could be proven */
  complete: boolean;
}

export interface AnalysisInput {
  hitPolicy: string;
  columns: { name: string; type: ColumnType }[];
  rowIds: string[];
  shapes: CellShape[][];
}

/** overlapping pairs listed (all are counted) */
export const MAX_REPORTED_OVERLAPS = 100;
/** gaps listed (the search stops at the next one, which says the list is cut) */
export const MAX_REPORTED_GAPS = 10;
const SEARCH_BUDGET = 200_000;
/**
 * Cell comparisons and row visits one analysis may spend, pairs and gap search together (≈ 50 ms on a quiet core).
 * Past it the analysis stops where it is and says `complete: false`: a 10,000-row table has 50 million
 * row pairs, and the analysis is an author's aid, not a proof the service owes at any price.
 */
export const ANALYSIS_WORK_BUDGET = 2_000_000;

function intervalsIntersect(a: Interval, b: Interval): boolean {
  if (a.hi < b.lo || b.hi < a.lo) return false;
  if (a.hi === b.lo) return a.hiIncl && b.loIncl;
  if (b.hi === a.lo) return b.hiIncl && a.loIncl;
  return true;
}

function intervalInside(inner: Interval, outer: Interval): boolean {
  const loOk = inner.lo > outer.lo || (inner.lo === outer.lo && (outer.loIncl || !inner.loIncl));
  const hiOk = inner.hi < outer.hi || (inner.hi === outer.hi && (outer.hiIncl || !inner.hiIncl));
  return loOk && hiOk;
}

/** true, false, or null (cannot tell: opaque) */
export function shapesIntersect(a: CellShape, b: CellShape): boolean | null {
  if (a.kind === 'opaque' || b.kind === 'opaque') return null;
  if (a.kind === 'any' || b.kind === 'any') return true;
  if (a.kind !== b.kind) return false;
  if (a.kind === 'strings') return a.values.some((v) => (b as typeof a).values.includes(v));
  if (a.kind === 'booleans') return a.values.some((v) => (b as typeof a).values.includes(v));
  return a.intervals.some((x) => (b as typeof a).intervals.some((y) => intervalsIntersect(x, y)));
}

/** Is every value accepted by `inner` accepted by `outer`? null when opaque. */
export function shapeSubsumed(inner: CellShape, outer: CellShape): boolean | null {
  if (inner.kind === 'opaque' || outer.kind === 'opaque') return null;
  if (outer.kind === 'any') return true;
  if (inner.kind === 'any') return false;
  if (inner.kind !== outer.kind) return false;
  if (inner.kind === 'strings') return inner.values.every((v) => (outer as typeof inner).values.includes(v));
  if (inner.kind === 'booleans') return inner.values.every((v) => (outer as typeof inner).values.includes(v));
  return inner.intervals.every((i) => (outer as typeof inner).intervals.some((o) => intervalInside(i, o)));
}

/** Representative values of one column: one per elementary region its cells distinguish. */
function representatives(shapes: CellShape[], type: ColumnType): { value: unknown; label: string }[] {
  const reps: { value: unknown; label: string }[] = [];
  const strings = new Set<string>();
  const points = new Set<number>();
  let numbers = false;
  let booleans = false;
  for (const s of shapes) {
    if (s.kind === 'strings') s.values.forEach((v) => strings.add(v));
    else if (s.kind === 'booleans') booleans = true;
    else if (s.kind === 'numbers') {
      numbers = true;
      for (const i of s.intervals) {
        if (Number.isFinite(i.lo)) points.add(i.lo);
        if (Number.isFinite(i.hi)) points.add(i.hi);
      }
    }
  }
  if (type === 'boolean' || (type === 'any' && booleans)) {
    reps.push({ value: true, label: 'true' }, { value: false, label: 'false' });
  }
  if (type === 'string' || (type === 'any' && strings.size)) {
    for (const v of strings) reps.push({ value: v, label: JSON.stringify(v) });
    let other = 'other';
    for (let n = 1; strings.has(other); n++) other = `other${n}`;
    reps.push({ value: other, label: `any other string (e.g. ${JSON.stringify(other)})` });
  }
  if (type === 'number' || (type === 'any' && numbers)) {
    const sorted = [...points].sort((a, b) => a - b);
    if (sorted.length === 0) reps.push({ value: 0, label: 'any number' });
    else {
      reps.push({ value: sorted[0] - 1, label: `< ${sorted[0]}` });
      sorted.forEach((p, i) => {
        reps.push({ value: p, label: `= ${p}` });
        const next = sorted[i + 1];
        if (next !== undefined) reps.push({ value: (p + next) / 2, label: `(${p}..${next})` });
      });
      reps.push({ value: sorted[sorted.length - 1] + 1, label: `> ${sorted[sorted.length - 1]}` });
    }
  }
  if (reps.length === 0) reps.push({ value: null, label: 'any value' });
  return reps;
}

export function analyzeShapes(input: AnalysisInput): AnalysisResult {
  const { shapes, rowIds, columns } = input;
  const n = shapes.length;
  const width = columns.length;
  let complete = !shapes.some((row) => row.some((s) => s.kind === 'opaque'));
  const cell = (r: number, c: number): CellShape => shapes[r][c] ?? { kind: 'any' };

  // overlaps (rows i < j intersecting on every column) and redundancy (j inside an earlier i under First)
  const overlaps: Overlap[] = [];
  let overlapCount = 0;
  const redundantRows: Redundancy[] = [];
  const first = input.hitPolicy === 'First';
  const redundant = new Set<number>();
  let work = ANALYSIS_WORK_BUDGET;
  pairs: for (let j = 0; j < n; j++) {
    for (let i = 0; i < j; i++) {
      if ((work -= width) < 0) {
        complete = false;
        break pairs;
      }
      let meet = true;
      for (let c = 0; c < width && meet; c++) meet = shapesIntersect(cell(i, c), cell(j, c)) === true;
      if (!meet) continue;
      if (++overlapCount <= MAX_REPORTED_OVERLAPS)
        overlaps.push({
          rowIds: [rowIds[i], rowIds[j]],
          columns: columns
            .filter((_, c) => cell(i, c).kind !== 'any' || cell(j, c).kind !== 'any')
            .map((c) => c.name),
        });
      if (first && !redundant.has(j)) {
        let inside = true;
        for (let c = 0; c < width && inside; c++) inside = shapeSubsumed(cell(j, c), cell(i, c)) === true;
        if (inside) {
          redundant.add(j);
          redundantRows.push({ rowId: rowIds[j], subsumedBy: rowIds[i] });
        }
      }
    }
  }

  // gaps: depth-first over each column's representative values, keeping the rows still matching
  const reps = columns.map((col, c) =>
    representatives(
      shapes.map((row) => row[c] ?? { kind: 'any' }),
      col.type,
    ),
  );
  const gaps: Gap[] = [];
  let gapsTruncated = false;
  let budget = SEARCH_BUDGET;
  work = Math.max(work, ANALYSIS_WORK_BUDGET / 4); // the gap search keeps a share of its own
  const chosen: number[] = new Array(width).fill(0);
  const search = (c: number, alive: number[]): void => {
    if (gapsTruncated || budget <= 0) return;
    if (alive.length === 0) {
      if (gaps.length === MAX_REPORTED_GAPS) {
        gapsTruncated = true; // one more than the list holds: say it is cut, and stop
        return;
      }
      const example: Record<string, unknown> = {};
      const parts: string[] = [];
      for (let k = 0; k < width; k++) {
        const rep = k < c ? reps[k][chosen[k]] : reps[k][0];
        example[columns[k].name] = rep.value;
        if (k < c) parts.push(`${columns[k].name} ${rep.label}`);
      }
      gaps.push({ example, description: `No row matches ${parts.join(' and ') || 'any input'}` });
      return;
    }
    if (c === width) return;
    for (let v = 0; v < reps[c].length; v++) {
      if (--budget <= 0) {
        complete = false;
        return;
      }
      if ((work -= alive.length) < 0) {
        complete = false;
        budget = 0;
        return;
      }
      chosen[c] = v;
      const value = reps[c][v].value;
      const next = alive.filter((r) => shapeAccepts(cell(r, c), value) !== false);
      search(c + 1, next);
      if (gapsTruncated) return;
    }
  };
  if (n === 0) gaps.push({ example: {}, description: 'The table has no rows' });
  else
    search(
      0,
      shapes.map((_, r) => r),
    );
  return {
    overlaps,
    overlapCount,
    overlapsTruncated: overlapCount > overlaps.length,
    gaps,
    gapsTruncated,
    redundantRows,
    complete,
  };
}
