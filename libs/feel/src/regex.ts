/** XPath (XML Schema) regular expressions mapped to JS RegExp, with guards against catastrophic backtracking. */

export const MAX_REGEX_INPUT = 100_000;
export const MAX_PATTERN_LENGTH = 10_000;

const cache = new Map<string, RegExp | string>();

/** Heuristic: a quantified group that itself contains a quantifier or an alternation (e.g. (a+)+, (a|aa)*, (.*)*). */
export function isDangerous(pattern: string): boolean {
  const stack: { quant: boolean; alt: boolean }[] = [];
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '\\') {
      i++;
      continue;
    }
    if (inClass) {
      if (c === ']') inClass = false;
      continue;
    }
    if (c === '[') {
      inClass = true;
      continue;
    }
    if (c === '(') {
      stack.push({ quant: false, alt: false });
      continue;
    }
    const isQuant = c === '*' || c === '+' || (c === '{' && /^\{\d+(,\d*)?\}/.test(pattern.slice(i)));
    if (c === '|' && stack.length) stack[stack.length - 1].alt = true;
    if (c === ')') {
      const g = stack.pop();
      const next = pattern[i + 1];
      const rep = next === '{' ? /^\{(\d+)(,(\d*))?\}/.exec(pattern.slice(i + 1)) : null;
      const unbounded = next === '*' || next === '+' || (rep !== null && rep[2] !== undefined && !rep[3]);
      const boundedBig = rep !== null && Number(rep[3] || rep[1]) > 10;
      if (g && (g.quant || g.alt) && (unbounded || boundedBig)) return true;
      if (g && stack.length && (g.quant || unbounded)) stack[stack.length - 1].quant = true;
      continue;
    }
    if (isQuant && stack.length) stack[stack.length - 1].quant = true;
  }
  // back-references combined with quantifiers can also explode
  return /\\[1-9]/.test(pattern) && /[*+]/.test(pattern);
}

/** Returns a RegExp, or an error message string. */
export function xpathRegex(
  pattern: string,
  flags: string | null | undefined,
  global = false,
): RegExp | string {
  const key = pattern + '\u0000' + (flags ?? '') + (global ? 'g' : '');
  const hit = cache.get(key);
  if (hit !== undefined) return hit;
  const r = build(pattern, flags ?? '', global);
  if (cache.size > 1000) cache.clear();
  cache.set(key, r);
  return r;
}

function build(pattern: string, flags: string, global: boolean): RegExp | string {
  if (pattern.length > MAX_PATTERN_LENGTH) return 'pattern too long';
  if (!/^[smixq]*$/.test(flags)) return `invalid regular expression flags '${flags}'`;
  if (!flags.includes('q') && /(^|[^\\])(\\\\)*\\0/.test(pattern))
    return 'invalid escape \\0 in regular expression';
  let p = pattern;
  if (flags.includes('q')) {
    p = p.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
  } else {
    if (flags.includes('x')) {
      // remove whitespace outside character classes
      let out = '';
      let inClass = false;
      for (let i = 0; i < p.length; i++) {
        const c = p[i];
        if (c === '\\' && !/\s/.test(p[i + 1] ?? '')) {
          out += c + (p[i + 1] ?? '');
          i++;
          continue;
        }
        if (c === '[') inClass = true;
        else if (c === ']') inClass = false;
        if (!inClass && /\s/.test(c)) continue;
        out += c;
      }
      p = out;
    }
    // XPath forbids empty-matching at top? (handled by callers); translate XSD-only constructs
    p = p
      .replace(/\\i/g, '[A-Za-z_:]')
      .replace(/\\c/g, '[-._:A-Za-z0-9]')
      .replace(/\\I/g, '[^A-Za-z_:]')
      .replace(/\\C/g, '[^-._:A-Za-z0-9]');
    p = p.replace(/\\p\{Is([A-Za-z]+)\}/g, (_m, block: string) =>
      block === 'BasicLatin' ? '[\\u0000-\\u007F]' : '[\\s\\S]',
    );
    // character class subtraction [a-z-[aeiou]] -> lookahead form
    p = p.replace(/\[([^[\]]*)-\[([^\]]*)\]\]/g, (_m, a: string, b: string) => `(?:(?![${b}])[${a}])`);
    if (isDangerous(p))
      return 'regular expression rejected: nested quantifiers may backtrack catastrophically';
  }
  let jsFlags = 'u';
  if (flags.includes('s')) jsFlags += 's';
  if (flags.includes('m')) jsFlags += 'm';
  if (flags.includes('i')) jsFlags += 'i';
  if (global) jsFlags += 'g';
  try {
    return new RegExp(p, jsFlags);
  } catch (e) {
    return `invalid regular expression: ${(e as Error).message}`;
  }
}
