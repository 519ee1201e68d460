/** FEEL lexer: source text -> tokens with positions. Names are split into words; the parser joins them. */

export type TokenType = 'num' | 'str' | 'name' | 'op' | 'other' | 'eof';

export interface Token {
  type: TokenType;
  text: string;
  /** decoded string value for 'str' tokens */
  value?: string;
  start: number;
  end: number;
  line: number;
  column: number;
}

export class FeelSyntaxError extends Error {
  constructor(
    message: string,
    readonly line: number,
    readonly column: number,
    readonly token: string,
    readonly offset: number = 0,
  ) {
    super(
      `${message} at line ${line}, column ${column}${token ? ` (near '${token.length > 40 ? token.slice(0, 40) + '…' : token}')` : ''}`,
    );
    this.name = 'FeelSyntaxError';
  }
  /** message without the position suffix */
  get reason(): string {
    return this.message.replace(/ at line \d+, column \d+.*$/s, '');
  }
}

const OPS = [
  '..',
  '**',
  '!=',
  '<=',
  '>=',
  '->',
  '+',
  '-',
  '*',
  '/',
  '=',
  '<',
  '>',
  '(',
  ')',
  '[',
  ']',
  '{',
  '}',
  ',',
  '.',
  ':',
  '?',
  '@',
  ';',
];

export const MAX_SOURCE_LENGTH = 2_000_000;

function isNameStart(c: number): boolean {
  return (
    (c >= 65 && c <= 90) ||
    (c >= 97 && c <= 122) ||
    c === 95 || // _
    c === 63 || // ?
    (c >= 0xc0 &&
      c !== 0xd7 &&
      c !== 0xf7 &&
      !(c >= 0x2000 && c <= 0x206f) &&
      !(c >= 0xfff0 && c <= 0xffff) &&
      c !== 0x3000)
  );
}
function isNamePart(c: number): boolean {
  return (
    isNameStart(c) ||
    (c >= 48 && c <= 57) ||
    c === 0xb7 ||
    (c >= 0x300 && c <= 0x36f) ||
    c === 0x203f ||
    c === 0x2040
  );
}
function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

export function tokenize(src: string): Token[] {
  if (src.length > MAX_SOURCE_LENGTH)
    throw new FeelSyntaxError(
      `Expression too long (${src.length} characters, limit ${MAX_SOURCE_LENGTH})`,
      1,
      1,
      '',
    );
  const tokens: Token[] = [];
  let i = 0;
  let line = 1;
  let lineStart = 0;
  const n = src.length;
  const push = (type: TokenType, start: number, end: number, value?: string) => {
    tokens.push({
      type,
      text: src.slice(start, end),
      value,
      start,
      end,
      line,
      column: start - lineStart + 1,
    });
  };
  while (i < n) {
    const c = src.charCodeAt(i);
    // whitespace
    if (c === 10) {
      i++;
      line++;
      lineStart = i;
      continue;
    }
    if (
      c === 32 ||
      c === 9 ||
      c === 13 ||
      c === 0xa0 ||
      c === 0xfeff ||
      (c >= 0x2000 && c <= 0x200b) ||
      c === 0x3000 ||
      c === 0x2028 ||
      c === 0x2029 ||
      c === 0x0b ||
      c === 0x0c
    ) {
      i++;
      continue;
    }
    // comments
    if (c === 47 && src.charCodeAt(i + 1) === 47) {
      while (i < n && src.charCodeAt(i) !== 10) i++;
      continue;
    }
    if (c === 47 && src.charCodeAt(i + 1) === 42) {
      const startLine = line;
      const startCol = i - lineStart + 1;
      i += 2;
      while (i < n && !(src.charCodeAt(i) === 42 && src.charCodeAt(i + 1) === 47)) {
        if (src.charCodeAt(i) === 10) {
          line++;
          lineStart = i + 1;
        }
        i++;
      }
      if (i >= n) throw new FeelSyntaxError('Unterminated comment', startLine, startCol, '/*', i);
      i += 2;
      continue;
    }
    const start = i;
    // numbers: 12, 1.5, .5, 1e10, 1.2E-3
    if (isDigit(c) || (c === 46 && isDigit(src.charCodeAt(i + 1)))) {
      while (i < n && isDigit(src.charCodeAt(i))) i++;
      if (src.charCodeAt(i) === 46 && isDigit(src.charCodeAt(i + 1))) {
        i++;
        while (i < n && isDigit(src.charCodeAt(i))) i++;
      }
      const e = src.charCodeAt(i);
      if (e === 101 || e === 69) {
        let j = i + 1;
        const s = src.charCodeAt(j);
        if (s === 43 || s === 45) j++;
        if (isDigit(src.charCodeAt(j))) {
          i = j;
          while (i < n && isDigit(src.charCodeAt(i))) i++;
        }
      }
      push('num', start, i);
      continue;
    }
    // strings
    if (c === 34) {
      i++;
      let out = '';
      let closed = false;
      while (i < n) {
        const ch = src.charCodeAt(i);
        if (ch === 34) {
          closed = true;
          i++;
          break;
        }
        if (ch === 92) {
          const esc = src[i + 1];
          i += 2;
          switch (esc) {
            case 'n':
              out += '\n';
              break;
            case 'r':
              out += '\r';
              break;
            case 't':
              out += '\t';
              break;
            case '"':
              out += '"';
              break;
            case "'":
              out += "'";
              break;
            case '\\':
              out += '\\';
              break;
            case 'u': {
              const hex = src.slice(i, i + 4);
              if (!/^[0-9a-fA-F]{4}$/.test(hex))
                throw new FeelSyntaxError('Invalid unicode escape', line, i - lineStart - 1, '\\u' + hex, i);
              out += String.fromCharCode(parseInt(hex, 16));
              i += 4;
              break;
            }
            case 'U': {
              const hex = src.slice(i, i + 6);
              if (!/^[0-9a-fA-F]{6}$/.test(hex) || parseInt(hex, 16) > 0x10ffff)
                throw new FeelSyntaxError('Invalid unicode escape', line, i - lineStart - 1, '\\U' + hex, i);
              out += String.fromCodePoint(parseInt(hex, 16));
              i += 6;
              break;
            }
            default:
              out += '\\' + (esc ?? '');
          }
          continue;
        }
        if (ch === 10) {
          line++;
          lineStart = i + 1;
        }
        out += src[i];
        i++;
      }
      if (!closed)
        throw new FeelSyntaxError(
          'Unterminated string literal',
          tokens.length ? line : 1,
          start - lineStart + 1,
          src.slice(start, start + 20),
          start,
        );
      push('str', start, i, out);
      continue;
    }
    if (isNameStart(c) || (c >= 0xd800 && c <= 0xdbff)) {
      i++;
      while (i < n) {
        const d = src.charCodeAt(i);
        if (isNamePart(d) || (d >= 0xd800 && d <= 0xdfff)) i++;
        else break;
      }
      // a lone '?' is an operator-like name; keep as name
      push('name', start, i);
      continue;
    }
    let matched = false;
    for (const op of OPS) {
      if (src.startsWith(op, i)) {
        i += op.length;
        push('op', start, i);
        matched = true;
        break;
      }
    }
    if (matched) continue;
    // any other character: kept as an 'other' token so that names with extra symbols (' . / - + *) can match
    i++;
    push('other', start, i);
  }
  tokens.push({ type: 'eof', text: '', start: n, end: n, line, column: n - lineStart + 1 });
  return tokens;
}
