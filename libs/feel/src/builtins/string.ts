/** String built-ins (`substring`, `matches`, `replace`, `split`, `string join`, …). */
import { MAX_REGEX_INPUT, xpathRegex } from '../regex';
import { isStr, num, bad, chars } from './arguments';
import { sig, type DefineBuiltin } from './builtin-function';

export function defineStringBuiltins(def: DefineBuiltin): void {
  def(
    'substring',
    sig(
      ['string', 'start position', 'length'],
      (s, start, len) => {
        if (!isStr(s)) return bad('substring');
        const st = num(start);
        if (!st) return bad('substring');
        const cs = chars(s);
        let i = st.round().toNumber();
        if (i === 0) return bad('substring', 'start position 0');
        if (i < 0) i = cs.length + i + 1;
        if (i < 1) i = 1;
        if (len === undefined || len === null) return cs.slice(i - 1).join('');
        const l = num(len);
        if (!l || l.isNegative()) return bad('substring');
        return cs.slice(i - 1, i - 1 + l.trunc().toNumber()).join('');
      },
      2,
    ),
  );
  def(
    'string length',
    sig(['string'], (s) => (isStr(s) ? chars(s).length : bad('string length'))),
  );
  def(
    'upper case',
    sig(['string'], (s) => (isStr(s) ? s.toUpperCase() : bad('upper case'))),
  );
  def(
    'lower case',
    sig(['string'], (s) => (isStr(s) ? s.toLowerCase() : bad('lower case'))),
  );
  def(
    'substring before',
    sig(['string', 'match'], (s, m) => {
      if (!isStr(s) || !isStr(m)) return bad('substring before');
      const i = s.indexOf(m);
      return i < 0 ? '' : s.slice(0, i);
    }),
  );
  def(
    'substring after',
    sig(['string', 'match'], (s, m) => {
      if (!isStr(s) || !isStr(m)) return bad('substring after');
      const i = s.indexOf(m);
      return i < 0 ? '' : s.slice(i + m.length);
    }),
  );
  def(
    'contains',
    sig(['string', 'match'], (s, m) => (isStr(s) && isStr(m) ? s.includes(m) : bad('contains'))),
  );
  def(
    'starts with',
    sig(['string', 'match'], (s, m) => (isStr(s) && isStr(m) ? s.startsWith(m) : bad('starts with'))),
  );
  def(
    'ends with',
    sig(['string', 'match'], (s, m) => (isStr(s) && isStr(m) ? s.endsWith(m) : bad('ends with'))),
  );
  def(
    'matches',
    sig(
      ['input', 'pattern', 'flags'],
      (input, pattern, flags) => {
        if (!isStr(input) || !isStr(pattern) || (flags != null && !isStr(flags))) return bad('matches');
        if (input.length > MAX_REGEX_INPUT) return bad('matches', 'input too long');
        const re = xpathRegex(pattern, flags as string | null);
        if (typeof re === 'string') return bad('matches', re);
        return re.test(input);
      },
      2,
    ),
  );
  def(
    'replace',
    sig(
      ['input', 'pattern', 'replacement', 'flags'],
      (input, pattern, repl, flags) => {
        if (!isStr(input) || !isStr(pattern) || !isStr(repl) || (flags != null && !isStr(flags)))
          return bad('replace');
        if (input.length > MAX_REGEX_INPUT) return bad('replace', 'input too long');
        const re = xpathRegex(pattern, flags as string | null, true);
        if (typeof re === 'string') return bad('replace', re);
        if (re.test('')) return bad('replace', 'pattern matches the empty string');
        re.lastIndex = 0;
        // XPath replacement: $N groups, \$ and \\ escapes
        let jsRepl = '';
        for (let i = 0; i < repl.length; i++) {
          const c = repl[i];
          if (c === '\\') {
            const nx = repl[i + 1];
            if (nx === '$') jsRepl += '$$';
            else if (nx === '\\') jsRepl += '\\';
            else return bad('replace', 'invalid replacement');
            i++;
          } else if (c === '$') {
            if (!/[0-9]/.test(repl[i + 1] ?? '')) return bad('replace', 'invalid replacement');
            if (repl[i + 1] === '0') {
              jsRepl += '$&';
              i++;
            } else jsRepl += '$';
          } else jsRepl += c;
        }
        return input.replace(re, jsRepl);
      },
      3,
    ),
  );
  def(
    'split',
    sig(['string', 'delimiter'], (s, d) => {
      if (!isStr(s) || !isStr(d)) return bad('split');
      if (s.length > MAX_REGEX_INPUT) return bad('split', 'input too long');
      const re = xpathRegex(d, null, true);
      if (typeof re === 'string') return bad('split', re);
      if (re.test('')) return bad('split', 'delimiter matches the empty string');
      re.lastIndex = 0;
      return s.split(re).filter((x) => x !== undefined);
    }),
  );
  def(
    'string join',
    sig(
      ['list', 'delimiter'],
      (l, d) => {
        const p = undefined,
          sfx = undefined;
        if (typeof l === 'string') l = [l];
        if (!Array.isArray(l)) return bad('string join');
        if (d != null && !isStr(d)) return bad('string join');
        const parts: string[] = [];
        for (const e of l) {
          if (e === null) continue;
          if (!isStr(e)) return bad('string join', 'list must contain strings');
          parts.push(e);
        }
        return (isStr(p) ? p : '') + parts.join((d as string) ?? '') + (isStr(sfx) ? sfx : '');
      },
      1,
    ),
  );
}
