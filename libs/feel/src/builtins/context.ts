/** Context built-ins: `get value`, `get entries`, `context`, `context put`, `context merge`. */
import { hasOwn, isContext, defineKey, type FeelContext, type FeelValue } from '../values';
import { isStr, bad } from './arguments';
import { sig, type DefineBuiltin } from './builtin-function';

function putPath(c: FeelContext, keys: string[], v: FeelValue): FeelValue {
  const r: FeelContext = { ...c };
  const [k, ...rest] = keys;
  if (rest.length === 0) defineKey(r, k, v);
  else {
    const inner = hasOwn(c, k) ? c[k] : null;
    if (!isContext(inner)) return bad('context put', 'nested key path does not lead to a context');
    const x = putPath(inner, rest, v);
    if (x === null) return null;
    defineKey(r, k, x);
  }
  return r;
}

export function defineContextBuiltins(def: DefineBuiltin): void {
  def(
    'get value',
    sig(['m', 'key'], (m, k) => {
      if (!isContext(m)) return bad('get value');
      if (Array.isArray(k)) {
        let cur: FeelValue = m;
        for (const p of k) {
          if (!isContext(cur) || !isStr(p) || !hasOwn(cur, p)) return null;
          cur = cur[p];
        }
        return cur;
      }
      if (!isStr(k)) return bad('get value');
      return hasOwn(m, k) ? m[k] : null;
    }),
  );
  def(
    'get entries',
    sig(['m'], (m) => {
      if (!isContext(m)) return bad('get entries');
      return Object.keys(m).map((key) => ({ key, value: m[key] }));
    }),
  );
  def(
    'context',
    sig(['entries'], (entries) => {
      if (isContext(entries)) entries = [entries];
      if (!Array.isArray(entries)) return bad('context');
      const r: FeelContext = {};
      for (const e of entries) {
        if (!isContext(e) || !hasOwn(e, 'key') || !hasOwn(e, 'value') || !isStr(e.key))
          return bad('context', 'entries must be {key, value} contexts');
        if (hasOwn(r, e.key)) return bad('context', `duplicate key '${e.key}'`);
        defineKey(r, e.key, e.value);
      }
      return r;
    }),
  );
  def(
    'context put',
    sig(['context', 'keys', 'value'], (c, k, v) => {
      if (!isContext(c)) return bad('context put');
      if (isStr(k)) return putPath(c, [k], v ?? null);
      if (!Array.isArray(k) || k.length === 0 || !k.every(isStr)) return bad('context put');
      return putPath(c, k as string[], v ?? null);
    }),
    sig(['context', 'key', 'value'], (c, k, v) => {
      if (!isContext(c) || !isStr(k)) return bad('context put');
      return putPath(c, [k], v ?? null);
    }),
  );
  def(
    'context merge',
    sig(['contexts'], (cs) => {
      if (isContext(cs)) cs = [cs];
      if (!Array.isArray(cs)) return bad('context merge');
      const r: FeelContext = {};
      for (const c of cs) {
        if (!isContext(c)) return bad('context merge');
        for (const k of Object.keys(c)) defineKey(r, k, c[k]);
      }
      return r;
    }),
  );
}
