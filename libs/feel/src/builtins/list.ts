/** List built-ins (`count`, `sum`, `sort`, `union`, `list replace`, …). */
import { step } from '../evaluation-context';
import { Decimal, FeelFunction, feelCompare, feelEquals, normNum, type FeelValue } from '../values';
import { num, int, bad, listArg, out } from './arguments';
import { type V, sig, type DefineBuiltin } from './builtin-function';

function minmax(name: string, sign: number) {
  return sig(
    ['list'],
    (...args) => {
      const l = listArg(args);
      if (!l) return bad(name);
      if (l.length === 0) return null;
      let best: FeelValue = l[0];
      for (let i = 1; i < l.length; i++) {
        const c = feelCompare(l[i], best);
        if (c === null) return bad(name, 'elements are not comparable');
        if (c * sign > 0) best = l[i];
      }
      if (l.length === 1 && feelCompare(best, best) === null) return bad(name, 'element not comparable');
      return best;
    },
    1,
    true,
  );
}

function numList(name: string, args: V[]): Decimal[] | null {
  const l = listArg(args);
  if (!l) return bad(name);
  const ds: Decimal[] = [];
  for (const e of l) {
    const d = num(e);
    if (!d) return bad(name, 'list must contain numbers');
    ds.push(d);
  }
  return ds;
}

function boolAgg(name: string, isAll: boolean) {
  return sig(
    ['list'],
    (...args) => {
      const l = listArg(args);
      if (!l) return bad(name);
      let sawOther = false;
      for (const e of l) {
        if (e === !isAll) return !isAll;
        if (typeof e !== 'boolean') sawOther = true;
      }
      return sawOther ? null : isAll;
    },
    1,
    true,
  );
}

/** Distinct values in order; quadratic, so each element is charged its comparisons as steps. */
function distinct(l: FeelValue[]): FeelValue[] {
  const r: FeelValue[] = [];
  for (const x of l) {
    step(r.length + 1);
    if (!r.some((y) => (x === null ? y === null : feelEquals(x, y) === true))) r.push(x);
  }
  return r;
}

function flat(l: FeelValue[], outList: FeelValue[], depth: number): void {
  if (depth > 500) return;
  for (const x of l) {
    if (Array.isArray(x)) flat(x, outList, depth + 1);
    else outList.push(x);
  }
}

// named variant: list replace(list, match, newItem)

/** `list replace(list, position, newItem)`, or with a match function in place of the position. */
function listReplace(l: V, p: V, item: V): FeelValue {
  if (l !== null && l !== undefined && !Array.isArray(l)) l = [l];
  if (!Array.isArray(l)) return bad('list replace');
  if (p instanceof FeelFunction) {
    if (!p.options.builtin && p.params.length !== 2)
      return bad('list replace', 'match function must take 2 parameters');
    const r: FeelValue[] = [];
    for (const x of l) {
      step();
      const m = p.invoke([x, item ?? null]);
      if (typeof m !== 'boolean') return bad('list replace', 'match function must return a boolean');
      r.push(m ? (item ?? null) : x);
    }
    return r;
  }
  const pd = num(p);
  let i = pd ? pd.trunc().toNumber() : null;
  if (i === null || i === 0 || Math.abs(i) > l.length) return bad('list replace', 'invalid position');
  if (i < 0) i = l.length + i + 1;
  const r = [...l];
  r[i - 1] = item ?? null;
  return r;
}

export function defineListBuiltins(def: DefineBuiltin): void {
  def(
    'list contains',
    sig(['list', 'element'], (l, e) => {
      if (!Array.isArray(l)) return bad('list contains');
      for (const x of l) {
        if (e === null || e === undefined) {
          if (x === null) return true;
        } else if (feelEquals(x, e) === true) return true;
      }
      return false;
    }),
  );
  def(
    'count',
    sig(['list'], (l) => (Array.isArray(l) ? l.length : bad('count'))),
  );

  def('min', minmax('min', -1));
  def('max', minmax('max', 1));

  def(
    'sum',
    sig(
      ['list'],
      (...args) => {
        const l = numList('sum', args);
        if (!l) return null;
        if (l.length === 0) return null;
        return out(l.reduce((a, b) => a.plus(b), new Decimal(0)));
      },
      1,
      true,
    ),
  );
  def(
    'product',
    sig(
      ['list'],
      (...args) => {
        const l = numList('product', args);
        if (!l) return null;
        if (l.length === 0) return null;
        return out(l.reduce((a, b) => a.times(b), new Decimal(1)));
      },
      1,
      true,
    ),
  );
  def(
    'mean',
    sig(
      ['list'],
      (...args) => {
        const l = numList('mean', args);
        if (!l || l.length === 0) return null;
        return out(l.reduce((a, b) => a.plus(b), new Decimal(0)).div(l.length));
      },
      1,
      true,
    ),
  );
  def(
    'median',
    sig(
      ['list'],
      (...args) => {
        const l = numList('median', args);
        if (!l || l.length === 0) return null;
        const s = [...l].sort((a, b) => a.cmp(b));
        const m = s.length >> 1;
        return out(s.length % 2 ? s[m] : s[m - 1].plus(s[m]).div(2));
      },
      1,
      true,
    ),
  );
  def(
    'stddev',
    sig(
      ['list'],
      (...args) => {
        const l = numList('stddev', args);
        if (!l || l.length < 2) return null;
        const mean = l.reduce((a, b) => a.plus(b), new Decimal(0)).div(l.length);
        const v = l.reduce((a, b) => a.plus(b.minus(mean).pow(2)), new Decimal(0)).div(l.length - 1);
        return out(v.sqrt());
      },
      1,
      true,
    ),
  );
  def(
    'mode',
    sig(
      ['list'],
      (...args) => {
        const l = numList('mode', args);
        if (!l) return null;
        const counts = new Map<string, { d: Decimal; n: number }>();
        for (const d of l) {
          const k = d.toString();
          const e = counts.get(k);
          if (e) e.n++;
          else counts.set(k, { d, n: 1 });
        }
        let max = 0;
        for (const e of counts.values()) max = Math.max(max, e.n);
        return [...counts.values()]
          .filter((e) => e.n === max)
          .map((e) => e.d)
          .sort((a, b) => a.cmp(b))
          .map((d) => normNum(d));
      },
      1,
      true,
    ),
  );
  def('all', boolAgg('all', true));
  def('any', boolAgg('any', false));

  def(
    'sublist',
    sig(
      ['list', 'start position', 'length'],
      (l, start, len) => {
        if (!Array.isArray(l)) return bad('sublist');
        let s = int(start);
        if (s === null || s === 0 || Math.abs(s) > l.length) return bad('sublist', 'invalid start position');
        if (s < 0) s = l.length + s + 1;
        if (len === undefined || len === null) return l.slice(s - 1);
        const n = int(len);
        if (n === null || n < 0 || s - 1 + n > l.length) return bad('sublist', 'invalid length');
        return l.slice(s - 1, s - 1 + n);
      },
      2,
    ),
  );
  def(
    'append',
    sig(
      ['list', 'item'],
      (l, ...items) => {
        if (!Array.isArray(l)) return bad('append');
        return [...l, ...items.map((x) => (x === undefined ? null : x))];
      },
      1,
      true,
    ),
  );
  def(
    'concatenate',
    sig(
      ['list'],
      (...ls) => {
        const r: FeelValue[] = [];
        for (const l of ls) {
          if (!Array.isArray(l)) return bad('concatenate');
          r.push(...l);
        }
        return r;
      },
      0,
      true,
    ),
  );
  def(
    'insert before',
    sig(['list', 'position', 'newItem'], (l, p, item) => {
      if (!Array.isArray(l)) return bad('insert before');
      let i = int(p);
      if (i === null || i === 0 || Math.abs(i) > l.length) return bad('insert before', 'invalid position');
      if (i < 0) i = l.length + i + 1;
      const r = [...l];
      r.splice(i - 1, 0, item ?? null);
      return r;
    }),
  );
  def(
    'remove',
    sig(['list', 'position'], (l, p) => {
      if (!Array.isArray(l)) return bad('remove');
      let i = int(p);
      if (i === null || i === 0 || Math.abs(i) > l.length) return bad('remove', 'invalid position');
      if (i < 0) i = l.length + i + 1;
      const r = [...l];
      r.splice(i - 1, 1);
      return r;
    }),
  );
  def(
    'reverse',
    sig(['list'], (l) => (Array.isArray(l) ? [...l].reverse() : bad('reverse'))),
  );
  def(
    'index of',
    sig(['list', 'match'], (l, m) => {
      if (!Array.isArray(l)) return bad('index of');
      const r: number[] = [];
      l.forEach((x, i) => {
        if (m === null || m === undefined ? x === null : feelEquals(x, m) === true) r.push(i + 1);
      });
      return r;
    }),
  );
  def(
    'union',
    sig(
      ['list'],
      (...ls) => {
        const all: FeelValue[] = [];
        for (const l of ls) {
          if (!Array.isArray(l)) return bad('union');
          all.push(...l);
        }
        return distinct(all);
      },
      0,
      true,
    ),
  );
  def(
    'distinct values',
    sig(['list'], (l) => (Array.isArray(l) ? distinct(l) : bad('distinct values'))),
  );
  def(
    'flatten',
    sig(['list'], (l) => {
      if (!Array.isArray(l)) return bad('flatten');
      const r: FeelValue[] = [];
      flat(l, r, 0);
      return r;
    }),
  );
  def(
    'sort',
    sig(
      ['list', 'precedes'],
      (l, f) => {
        if (!Array.isArray(l)) return bad('sort');
        if (f === undefined || f === null) {
          let ok = true;
          const r = [...l].sort((a, b) => {
            step();
            const c = feelCompare(a, b);
            if (c === null) ok = false;
            return c ?? 0;
          });
          return ok ? r : bad('sort', 'elements are not comparable');
        }
        if (!(f instanceof FeelFunction)) return bad('sort');
        let ok = true;
        const r = [...l].sort((a, b) => {
          if (!ok) return 0;
          step(2);
          const x = f.invoke([a, b]);
          if (x === true) return -1;
          if (x !== false) {
            ok = false;
            return 0;
          }
          const y = f.invoke([b, a]);
          return y === true ? 1 : 0;
        });
        return ok ? r : bad('sort', 'precedes function did not return a boolean');
      },
      1,
    ),
  );
  def(
    'list replace',
    sig(['list', 'position', 'newItem'], listReplace),
    // named variant: list replace(list, match, newItem)
    sig(['list', 'match', 'newItem'], listReplace),
  );
}
