import { LambdaSyntaxError } from './errors';

/** `invalid`: a lexical error or a C# token we refuse; `text` is the reason (the parser reports it in order). */
export type TokenKind = 'ident' | 'number' | 'string' | 'op' | 'invalid' | 'eof';

export interface Token {
  kind: TokenKind;
  /** identifier name, operator text or literal source text */
  text: string;
  /** literal value (numbers and strings) */
  value?: number | string;
  /** 0-based offset of the first character */
  start: number;
  /** `@name`: an identifier even when it spells a keyword */
  verbatim?: boolean;
}

/** Operators we parse, longest first within each leading character. */
const OPERATORS = [
  '?.',
  '?[',
  '??',
  '==',
  '!=',
  '<>',
  '<=',
  '>=',
  '&&',
  '||',
  '=>',
  '=',
  '<',
  '>',
  '!',
  '+',
  '-',
  '*',
  '/',
  '%',
  '?',
  ':',
  '.',
  ',',
  '(',
  ')',
  '[',
  ']',
];

/** C# tokens we recognise only to refuse them by name. */
const UNSUPPORTED_OPERATORS: [string, string][] = [
  ['<<=', "compound assignment '<<='"],
  ['>>=', "compound assignment '>>='"],
  ['??=', "compound assignment '??='"],
  ['++', "increment '++'"],
  ['--', "decrement '--'"],
  ['+=', "compound assignment '+='"],
  ['-=', "compound assignment '-='"],
  ['*=', "compound assignment '*='"],
  ['/=', "compound assignment '/='"],
  ['%=', "compound assignment '%='"],
  ['&=', "compound assignment '&='"],
  ['|=', "compound assignment '|='"],
  ['^=', "compound assignment '^='"],
  ['<<', "bitwise operator '<<'"],
  ['>>', "bitwise operator '>>'"],
  ['::', "namespace alias '::'"],
  ['->', "pointer member access '->'"],
  ['&', "bitwise operator '&'"],
  ['|', "bitwise operator '|'"],
  ['^', "bitwise operator '^'"],
  ['~', "bitwise operator '~'"],
  ['{', "initializer '{'"],
  ['}', "initializer '}'"],
  [';', "statement separator ';'"],
];

const isDigit = (c: number) => c >= 48 && c <= 57;
const isIdentStart = (c: number) => (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c > 127;
const isIdentPart = (c: number) => isIdentStart(c) || isDigit(c);

const SIMPLE_ESCAPES: Record<string, string> = {
  '"': '"',
  "'": "'",
  '\\': '\\',
  '0': '\0',
  a: '\x07',
  b: '\b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
  v: '\v',
};

/**
 * Splits a C#-style lambda expression into tokens. A lexical error ends the list with an `invalid` token
 * (then `eof`), so the parser reports errors in source order (`new {` names `new`, not `{`).
 */
export function tokenize(source: string): Token[] {
  const tokens: Token[] = [];
  try {
    lex(source, tokens);
  } catch (e) {
    if (!(e instanceof LambdaSyntaxError)) throw e;
    tokens.push({ kind: 'invalid', text: e.reason, start: e.offset });
  }
  tokens.push({ kind: 'eof', text: '<end of expression>', start: source.length });
  return tokens;
}

function lex(source: string, tokens: Token[]): void {
  const n = source.length;
  let i = 0;
  const fail = (reason: string, at: number): never => {
    throw new LambdaSyntaxError(reason, source, at);
  };
  while (i < n) {
    const c = source.charCodeAt(i);
    if (c === 32 || c === 9 || c === 10 || c === 13 || c === 0xa0 || c === 0xfeff) {
      i++;
      continue;
    }
    const start = i;
    if (c === 47 && (source[i + 1] === '/' || source[i + 1] === '*'))
      fail("unsupported construct 'comment'", i);
    if (isIdentStart(c)) {
      while (i < n && isIdentPart(source.charCodeAt(i))) i++;
      tokens.push({ kind: 'ident', text: source.slice(start, i), start });
      continue;
    }
    if (isDigit(c) || (c === 46 && isDigit(source.charCodeAt(i + 1)))) {
      tokens.push(readNumber(source, i, fail));
      i = tokens[tokens.length - 1].start + tokens[tokens.length - 1].text.length;
      continue;
    }
    if (c === 34 /* " */ || c === 39 /* ' */) {
      const t = readString(source, i, fail);
      tokens.push(t);
      i = start + t.text.length;
      continue;
    }
    if (c === 64 /* @ */) {
      if (source[i + 1] === '"') {
        const t = readVerbatimString(source, i, fail);
        tokens.push(t);
        i = start + t.text.length;
        continue;
      }
      if (isIdentStart(source.charCodeAt(i + 1))) {
        // @keyword: a verbatim identifier
        i++;
        while (i < n && isIdentPart(source.charCodeAt(i))) i++;
        tokens.push({ kind: 'ident', text: source.slice(start + 1, i), start, verbatim: true });
        continue;
      }
    }
    if (c === 36 /* $ */ && (source[i + 1] === '"' || source[i + 1] === '@'))
      fail("unsupported construct 'string interpolation'", i);
    const unsupported = UNSUPPORTED_OPERATORS.find(([op]) => source.startsWith(op, i));
    const op = OPERATORS.find((o) => source.startsWith(o, i));
    if (unsupported && (!op || unsupported[0].length > op.length))
      fail(`unsupported construct ${unsupported[1]}`, i);
    if (op) {
      // `c ?.5 : 1` is a conditional with a number, not a null-conditional member access
      if (op === '?.' && isDigit(source.charCodeAt(i + 2))) {
        tokens.push({ kind: 'op', text: '?', start });
        i++;
        continue;
      }
      tokens.push({ kind: 'op', text: op, start });
      i += op.length;
      continue;
    }
    fail(`unexpected character '${source[i]}'`, i);
  }
}

function readNumber(source: string, start: number, fail: (reason: string, at: number) => never): Token {
  let i = start;
  const n = source.length;
  if (source[i] === '0' && (source[i + 1] === 'x' || source[i + 1] === 'X')) {
    i += 2;
    const digitsAt = i;
    while (i < n && /[0-9a-fA-F_]/.test(source[i])) i++;
    if (i === digitsAt) fail('malformed hexadecimal literal', start);
    const value = parseInt(source.slice(digitsAt, i).replace(/_/g, ''), 16);
    i = skipIntegerSuffix(source, i);
    if (isIdentPart(source.charCodeAt(i))) fail('malformed number literal', start);
    return { kind: 'number', text: source.slice(start, i), value, start };
  }
  while (i < n && (isDigit(source.charCodeAt(i)) || source[i] === '_')) i++;
  if (source[i] === '.' && isDigit(source.charCodeAt(i + 1))) {
    i++;
    while (i < n && (isDigit(source.charCodeAt(i)) || source[i] === '_')) i++;
  }
  if (source[i] === 'e' || source[i] === 'E') {
    let j = i + 1;
    if (source[j] === '+' || source[j] === '-') j++;
    if (!isDigit(source.charCodeAt(j))) fail('malformed number literal', start);
    while (j < n && isDigit(source.charCodeAt(j))) j++;
    i = j;
  }
  const digits = source.slice(start, i).replace(/_/g, '');
  const s = source[i];
  if (s === 'm' || s === 'M' || s === 'd' || s === 'D' || s === 'f' || s === 'F') i++;
  else i = skipIntegerSuffix(source, i);
  if (isIdentPart(source.charCodeAt(i))) fail('malformed number literal', start);
  return { kind: 'number', text: source.slice(start, i), value: Number(digits), start };
}

/** u, l, ul, lu in any case */
function skipIntegerSuffix(source: string, i: number): number {
  const a = source[i]?.toLowerCase();
  if (a !== 'u' && a !== 'l') return i;
  const b = source[i + 1]?.toLowerCase();
  return (a === 'u' && b === 'l') || (a === 'l' && b === 'u') ? i + 2 : i + 1;
}

function readString(source: string, start: number, fail: (reason: string, at: number) => never): Token {
  const quote = source[start];
  let i = start + 1;
  let value = '';
  for (;;) {
    if (i >= source.length || source[i] === '\n') fail('unterminated string literal', start);
    const ch = source[i];
    if (ch === quote) break;
    if (ch !== '\\') {
      value += ch;
      i++;
      continue;
    }
    const e = source[i + 1];
    if (e !== undefined && SIMPLE_ESCAPES[e] !== undefined) {
      value += SIMPLE_ESCAPES[e];
      i += 2;
    } else if (e === 'u' || e === 'x' || e === 'U') {
      const max = e === 'U' ? 8 : 4;
      let j = i + 2;
      while (j < source.length && j - (i + 2) < max && /[0-9a-fA-F]/.test(source[j])) j++;
      const hex = source.slice(i + 2, j);
      if (hex.length === 0 || (e !== 'x' && hex.length !== max))
        fail(`malformed escape sequence '\\${e}'`, i);
      const code = parseInt(hex, 16);
      if (code > 0x10ffff) fail(`malformed escape sequence '\\${e}'`, i);
      value += String.fromCodePoint(code);
      i = j;
    } else fail(`unrecognized escape sequence '\\${e ?? ''}'`, i);
  }
  return { kind: 'string', text: source.slice(start, i + 1), value, start };
}

function readVerbatimString(
  source: string,
  start: number,
  fail: (reason: string, at: number) => never,
): Token {
  let i = start + 2;
  let value = '';
  for (;;) {
    if (i >= source.length) fail('unterminated string literal', start);
    if (source[i] === '"') {
      if (source[i + 1] === '"') {
        value += '"';
        i += 2;
        continue;
      }
      break;
    }
    value += source[i++];
  }
  return { kind: 'string', text: source.slice(start, i + 1), value, start };
}
