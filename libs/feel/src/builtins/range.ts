/** Range built-ins of DMN 1.4 (`before`, `after`, `meets`, `overlaps`, `includes`, `coincides`, …), over points and ranges. */
import { FeelRange, feelCompare, feelEquals, isContext, type FeelValue } from '../values';
import { bad } from './arguments';
import { sig, type DefineBuiltin, type Sig, type V } from './builtin-function';

const NEG = Symbol('-inf');

const POS = Symbol('+inf');

type P = FeelValue | typeof NEG | typeof POS;

interface R {
  s: P;
  si: boolean;
  e: P;
  ei: boolean;
}

function c3(a: P, b: P): number | null {
  if (a === NEG) return b === NEG ? 0 : -1;
  if (a === POS) return b === POS ? 0 : 1;
  if (b === NEG) return 1;
  if (b === POS) return -1;
  return feelCompare(a, b);
}

function L(a: P, b: P): boolean | null {
  const c = c3(a, b);
  return c === null ? null : c < 0;
}

function G(a: P, b: P): boolean | null {
  const c = c3(a, b);
  return c === null ? null : c > 0;
}

function E(a: P, b: P): boolean | null {
  if (typeof a === 'symbol' || typeof b === 'symbol') return a === b;
  return feelEquals(a, b);
}

function and(...xs: (boolean | null)[]): boolean | null {
  let n = false;
  for (const x of xs) {
    if (x === false) return false;
    if (x === null) n = true;
  }
  return n ? null : true;
}

function or(...xs: (boolean | null)[]): boolean | null {
  let n = false;
  for (const x of xs) {
    if (x === true) return true;
    if (x === null) n = true;
  }
  return n ? null : false;
}

function asRange(v: V): R | null {
  if (!(v instanceof FeelRange)) return null;
  return {
    s: v.start === undefined ? NEG : v.start,
    si: v.startIncluded,
    e: v.end === undefined ? POS : v.end,
    ei: v.endIncluded,
  };
}

function isPoint(v: V): v is FeelValue {
  return v !== null && v !== undefined && !(v instanceof FeelRange) && !Array.isArray(v) && !isContext(v);
}

type RF = {
  pp?: (a: FeelValue, b: FeelValue) => boolean | null;
  pr?: (a: FeelValue, b: R) => boolean | null;
  rp?: (a: R, b: FeelValue) => boolean | null;
  rr?: (a: R, b: R) => boolean | null;
};

/** The signatures of a range built-in: every point/range combination, by position or by name. */
function rangeSignatures(name: string, f: RF): Sig[] {
  const impl = (a: V, b: V): FeelValue => {
    if (a == null || b == null) return bad(name);
    const ra = asRange(a),
      rb = asRange(b);
    let r: boolean | null | undefined;
    if (ra && rb) r = f.rr?.(ra, rb);
    else if (ra && isPoint(b)) r = f.rp?.(ra, b);
    else if (rb && isPoint(a)) r = f.pr?.(a, rb);
    else if (isPoint(a) && isPoint(b)) r = f.pp?.(a, b);
    if (r === undefined) return bad(name);
    if (r === null) return bad(name, 'incomparable arguments');
    return r;
  };
  return [
    sig(['point1', 'point2'], impl),
    sig(['point', 'range'], impl),
    sig(['range', 'point'], impl),
    sig(['range1', 'range2'], impl),
    sig(['point1', 'range2'], impl),
    sig(['range1', 'point2'], impl),
  ];
}

const before: RF = {
  pp: (a, b) => L(a, b),
  pr: (p, r) => or(L(p, r.s), and(E(p, r.s), !r.si)),
  rp: (r, p) => or(L(r.e, p), and(E(r.e, p), !r.ei)),
  rr: (a, b) => or(L(a.e, b.s), and(or(!a.ei, !b.si), E(a.e, b.s))),
};

const overlapsBefore = (a: R, b: R) =>
  and(
    or(L(a.s, b.s), and(E(a.s, b.s), a.si, !b.si)),
    or(G(a.e, b.s), and(E(a.e, b.s), a.ei, b.si)),
    or(L(a.e, b.e), and(E(a.e, b.e), or(!a.ei, b.ei))),
  );

const finishesPR = (p: FeelValue, r: R) => and(r.ei, E(r.e, p));

const finishesRR = (a: R, b: R) =>
  and(a.ei === b.ei, E(a.e, b.e), or(G(a.s, b.s), and(E(a.s, b.s), or(!a.si, b.si))));

const includesRP = (r: R, p: FeelValue) =>
  or(and(L(r.s, p), G(r.e, p)), and(E(r.s, p), r.si), and(E(r.e, p), r.ei));

const includesRR = (a: R, b: R) =>
  and(or(L(a.s, b.s), and(E(a.s, b.s), or(a.si, !b.si))), or(G(a.e, b.e), and(E(a.e, b.e), or(a.ei, !b.ei))));

const startsPR = (p: FeelValue, r: R) => and(r.si, E(r.s, p));

const startsRR = (a: R, b: R) =>
  and(E(a.s, b.s), a.si === b.si, or(L(a.e, b.e), and(E(a.e, b.e), or(!a.ei, b.ei))));

export function defineRangeBuiltins(def: DefineBuiltin): void {
  def('before', ...rangeSignatures('before', before));
  def(
    'after',
    ...rangeSignatures('after', {
      pp: (a, b) => G(a, b),
      pr: (p, r) => or(G(p, r.e), and(E(p, r.e), !r.ei)),
      rp: (r, p) => or(G(r.s, p), and(E(r.s, p), !r.si)),
      rr: (a, b) => or(G(a.s, b.e), and(or(!a.si, !b.ei), E(a.s, b.e))),
    }),
  );
  def('meets', ...rangeSignatures('meets', { rr: (a, b) => and(a.ei, b.si, E(a.e, b.s)) }));
  def('met by', ...rangeSignatures('met by', { rr: (a, b) => and(b.ei, a.si, E(b.e, a.s)) }));
  def(
    'overlaps',
    ...rangeSignatures('overlaps', {
      rr: (a, b) =>
        and(or(G(a.e, b.s), and(E(a.e, b.s), a.ei, b.si)), or(L(a.s, b.e), and(E(a.s, b.e), a.si, b.ei))),
    }),
  );
  def('overlaps before', ...rangeSignatures('overlaps before', { rr: overlapsBefore }));
  def('overlaps after', ...rangeSignatures('overlaps after', { rr: (a, b) => overlapsBefore(b, a) }));
  def('finishes', ...rangeSignatures('finishes', { pr: finishesPR, rr: finishesRR }));
  def(
    'finished by',
    ...rangeSignatures('finished by', { rp: (r, p) => finishesPR(p, r), rr: (a, b) => finishesRR(b, a) }),
  );
  def('includes', ...rangeSignatures('includes', { rp: includesRP, rr: includesRR }));
  def(
    'during',
    ...rangeSignatures('during', { pr: (p, r) => includesRP(r, p), rr: (a, b) => includesRR(b, a) }),
  );
  def('starts', ...rangeSignatures('starts', { pr: startsPR, rr: startsRR }));
  def(
    'started by',
    ...rangeSignatures('started by', { rp: (r, p) => startsPR(p, r), rr: (a, b) => startsRR(b, a) }),
  );
  def(
    'coincides',
    ...rangeSignatures('coincides', {
      pp: (a, b) => E(a, b),
      rr: (a, b) => and(E(a.s, b.s), a.si === b.si, E(a.e, b.e), a.ei === b.ei),
    }),
  );
}
