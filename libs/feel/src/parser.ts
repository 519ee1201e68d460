/** FEEL recursive-descent parser with scope-aware name resolution (longest match against known names). */
import type { Iteration, Node, TypeNode } from './ast';
import { FeelSyntaxError, Token, tokenize } from './lexer';
import { Decimal, normNum } from './values';

export const MAX_NESTING = 128;
export const MAX_AST_DEPTH = 600;

/** Words that end a name when names are joined without scope knowledge. */
const STOP_WORDS = new Set([
  'and',
  'or',
  'in',
  'then',
  'else',
  'return',
  'satisfies',
  'between',
  'if',
  'for',
  'some',
  'every',
  'function',
  'instance',
]);
const RESERVED_START = new Set([
  'then',
  'else',
  'return',
  'satisfies',
  'in',
  'and',
  'or',
  'between',
  'instance',
]);

interface NameEntry {
  name: string;
  words: string[];
  /** gaps[k]: whitespace before words[k] */
  gaps: boolean[];
}
export type Frame = Map<string, NameEntry[]>;

const entryCache = new Map<string, NameEntry | null>();
function nameEntry(name: string): NameEntry | null {
  let e = entryCache.get(name);
  if (e !== undefined) return e;
  try {
    const toks = tokenize(name).filter((t) => t.type !== 'eof');
    if (toks.length === 0 || toks.some((t) => t.type === 'str')) e = null;
    else
      e = {
        name,
        words: toks.map((t) => t.text),
        gaps: toks.map((t, i) => i > 0 && t.start > toks[i - 1].end),
      };
  } catch {
    e = null;
  }
  if (entryCache.size > 20000) entryCache.clear();
  entryCache.set(name, e);
  return e;
}

export function makeFrame(names: Iterable<string>): Frame {
  const f: Frame = new Map();
  for (const n of names) addToFrame(f, n);
  return f;
}
function addToFrame(f: Frame, name: string): void {
  const e = nameEntry(name);
  if (!e) return;
  const list = f.get(e.words[0]);
  if (list) list.push(e);
  else f.set(e.words[0], [e]);
}

export interface ParseOptions {
  /** names known in the evaluation scope (enables names with spaces and symbols) */
  names?: Iterable<string>;
  /** extra frames (e.g. built-in names), searched after `names` */
  frames?: Frame[];
}

const TEMPORAL_TYPES = [
  ['date', 'and', 'time'],
  ['days', 'and', 'time', 'duration'],
  ['years', 'and', 'months', 'duration'],
];

/** The comparison operators a positive unary test may start with. */
const COMPARISON_OPS = new Set(['<', '<=', '>', '>=', '=', '!=']);

export class Parser {
  private toks: Token[];
  private i = 0;
  private depth = 0;
  private frames: Frame[];
  private noFilter = false;

  constructor(
    private src: string,
    opts: ParseOptions = {},
  ) {
    this.toks = tokenize(src);
    this.frames = [...(opts.frames ?? [])];
    if (opts.names) this.frames.push(makeFrame(opts.names));
  }

  // ------------------------------------------------------------ helpers
  private get tok(): Token {
    return this.toks[this.i];
  }
  private peek(k = 1): Token {
    return this.toks[Math.min(this.i + k, this.toks.length - 1)];
  }
  private isOp(text: string, t: Token = this.tok): boolean {
    return t.type === 'op' && t.text === text;
  }
  private isKw(text: string, t: Token = this.tok): boolean {
    return t.type === 'name' && t.text === text;
  }
  private error(msg: string, t: Token = this.tok): never {
    throw new FeelSyntaxError(msg, t.line, t.column, t.type === 'eof' ? '<end of input>' : t.text, t.start);
  }
  private expectOp(text: string): Token {
    if (!this.isOp(text)) this.error(`Expected '${text}'`);
    return this.toks[this.i++];
  }
  private expectKw(text: string): Token {
    if (!this.isKw(text)) this.error(`Expected '${text}'`);
    return this.toks[this.i++];
  }
  private enter(): void {
    if (++this.depth > MAX_NESTING) this.error(`Expression nested too deeply (limit ${MAX_NESTING})`);
  }
  private leave(): void {
    this.depth--;
  }
  private pushFrame(names: string[] = []): Frame {
    const f = makeFrame(names);
    this.frames.push(f);
    return f;
  }
  private popFrame(): void {
    this.frames.pop();
  }

  // ------------------------------------------------------------ entry points
  expectEnd(): void {
    if (this.tok.type !== 'eof') this.error(`Unexpected token '${this.tok.text}'`);
  }
  parseExpressionRoot(): Node {
    const n = this.parseExpression();
    if (this.tok.type !== 'eof')
      this.error(
        this.tok.type === 'other'
          ? `Unexpected character '${this.tok.text}'`
          : `Unexpected token '${this.tok.text}'`,
      );
    checkDepth(n, this.src);
    return n;
  }

  parseUnaryTestsRoot(): Node {
    const t = this.tok;
    let n: Node;
    if (t.type === 'eof') this.error('Empty unary tests');
    if (this.isOp('-') && this.peek().type === 'eof') {
      this.i++;
      n = { t: 'uany', pos: t.start };
    } else if (this.isKw('not') && this.isOp('(', this.peek()) && this.matchingParenIsLast(this.i + 1)) {
      this.i += 2;
      const tests = this.parsePositiveUnaryTests();
      this.expectOp(')');
      n = { t: 'unot', tests, pos: t.start };
    } else {
      n = { t: 'ulist', tests: this.parsePositiveUnaryTests(), pos: t.start };
    }
    if (this.tok.type !== 'eof')
      this.error(
        this.tok.type === 'other'
          ? `Unexpected character '${this.tok.text}'`
          : `Unexpected token '${this.tok.text}'`,
      );
    checkDepth(n, this.src);
    return n;
  }

  private matchingParenIsLast(openIdx: number): boolean {
    let d = 0;
    for (let k = openIdx; k < this.toks.length; k++) {
      const t = this.toks[k];
      if (t.type === 'op' && (t.text === '(' || t.text === '[' || t.text === '{')) d++;
      else if (t.type === 'op' && (t.text === ')' || t.text === ']' || t.text === '}')) {
        d--;
        if (d === 0) return this.toks[k + 1].type === 'eof';
      }
    }
    return false;
  }

  private parsePositiveUnaryTests(): Node[] {
    const tests = [this.parsePositiveUnaryTest()];
    while (this.isOp(',')) {
      this.i++;
      tests.push(this.parsePositiveUnaryTest());
    }
    return tests;
  }

  private parsePositiveUnaryTest(): Node {
    const t = this.tok;
    if (
      t.type === 'op' &&
      (t.text === '<' ||
        t.text === '<=' ||
        t.text === '>' ||
        t.text === '>=' ||
        t.text === '=' ||
        t.text === '!=')
    ) {
      this.i++;
      // `>> 5`, `== 5`, `<> 5`, `=< 5`: a comparison of the input with a range value, which never
      // holds; a typo, refused here rather than accepted and never matching
      const next = this.tok;
      if (next.type === 'op' && COMPARISON_OPS.has(next.text))
        this.error(`'${t.text}' cannot be followed by '${next.text}' in a unary test`);
      const arg = this.parseAdditive();
      return { t: 'utest', op: t.text as '<', arg, pos: t.start };
    }
    return this.parseExpression();
  }

  // ------------------------------------------------------------ expressions
  parseExpression(): Node {
    this.enter();
    try {
      const t = this.tok;
      if (t.type === 'name') {
        switch (t.text) {
          case 'if':
            return this.parseIf();
          case 'for':
            if (this.peek().type === 'name') return this.parseFor();
            break;
          case 'some':
          case 'every':
            if (this.peek().type === 'name') return this.parseQuantified();
            break;
          case 'function':
            if (this.isOp('(', this.peek())) return this.parseFunctionDef();
            break;
        }
      }
      return this.parseOr();
    } finally {
      this.leave();
    }
  }

  private parseIf(): Node {
    const pos = this.tok.start;
    this.i++;
    const cond = this.parseExpression();
    this.expectKw('then');
    const then = this.parseExpression();
    this.expectKw('else');
    const els = this.parseExpression();
    return { t: 'if', cond, then, else: els, pos };
  }

  private parseIterations(names: string[]): Iteration[] {
    const iters: Iteration[] = [];
    for (;;) {
      const name = this.parseDeclName(['in']);
      this.expectKw('in');
      const domain = this.parseExpression();
      let end: Node | undefined;
      if (this.isOp('..')) {
        this.i++;
        end = this.parseExpression();
      }
      iters.push({ name, domain, end });
      names.push(name);
      this.frames[this.frames.length - 1] = makeFrame(names);
      if (this.isOp(',')) {
        this.i++;
        continue;
      }
      return iters;
    }
  }

  /** a declared name (iteration variable, parameter): name words up to a stop token */
  private parseDeclName(stops: string[]): string {
    const first = this.tok;
    if (first.type !== 'name') this.error('Expected a name');
    let last = first;
    this.i++;
    while (this.tok.type === 'name' && !stops.includes(this.tok.text)) {
      last = this.tok;
      this.i++;
    }
    return this.src.slice(first.start, last.end).replace(/\s+/g, ' ');
  }

  private parseFor(): Node {
    const pos = this.tok.start;
    this.i++;
    const names = ['partial'];
    this.pushFrame(names);
    try {
      const iters = this.parseIterations(names);
      this.expectKw('return');
      const body = this.parseExpression();
      return { t: 'for', iters, body, pos };
    } finally {
      this.popFrame();
    }
  }

  private parseQuantified(): Node {
    const pos = this.tok.start;
    const every = this.tok.text === 'every';
    this.i++;
    const names: string[] = [];
    this.pushFrame(names);
    try {
      const iters = this.parseIterations(names);
      this.expectKw('satisfies');
      const cond = this.parseExpression();
      return { t: 'quant', every, iters, cond, pos };
    } finally {
      this.popFrame();
    }
  }

  private parseFunctionDef(): Node {
    const pos = this.tok.start;
    this.i += 2;
    const params: { name: string; type?: TypeNode }[] = [];
    if (!this.isOp(')')) {
      for (;;) {
        const name = this.parseDeclName([]);
        let type: TypeNode | undefined;
        if (this.isOp(':')) {
          this.i++;
          type = this.parseType();
        }
        params.push({ name, type });
        if (this.isOp(',')) {
          this.i++;
          continue;
        }
        break;
      }
    }
    this.expectOp(')');
    let external = false;
    if (this.isKw('external')) {
      external = true;
      this.i++;
    }
    this.pushFrame(params.map((p) => p.name));
    try {
      const body = this.parseExpression();
      return { t: 'fndef', params, body, external, pos };
    } finally {
      this.popFrame();
    }
  }

  private parseOr(): Node {
    let left = this.parseAnd();
    while (this.isKw('or')) {
      const pos = this.tok.start;
      this.i++;
      left = { t: 'or', left, right: this.parseAnd(), pos };
    }
    return left;
  }

  private parseAnd(): Node {
    let left = this.parseComparison();
    while (this.isKw('and')) {
      const pos = this.tok.start;
      this.i++;
      left = { t: 'and', left, right: this.parseComparison(), pos };
    }
    return left;
  }

  private parseComparison(): Node {
    let left = this.parseAdditive();
    for (;;) {
      const t = this.tok;
      if (
        t.type === 'op' &&
        (t.text === '=' ||
          t.text === '!=' ||
          t.text === '<' ||
          t.text === '<=' ||
          t.text === '>' ||
          t.text === '>=')
      ) {
        this.i++;
        left = { t: 'cmp', op: t.text as '=', left, right: this.parseAdditive(), pos: t.start };
      } else if (this.isKw('between')) {
        this.i++;
        const low = this.parseAdditive();
        this.expectKw('and');
        const high = this.parseAdditive();
        left = { t: 'between', value: left, low, high, pos: t.start };
      } else if (this.isKw('in')) {
        this.i++;
        left = { t: 'in', value: left, tests: this.parseInTests(), pos: t.start };
      } else if (this.isKw('instance') && this.isKw('of', this.peek())) {
        this.i += 2;
        left = { t: 'instance', value: left, type: this.parseType(), pos: t.start };
      } else return left;
    }
  }

  private parseInTests(): Node[] {
    if (!this.isOp('(')) return [this.parsePositiveUnaryTest()];
    const open = this.tok;
    this.i++;
    this.enter();
    try {
      const first = this.parsePositiveUnaryTest();
      if (this.isOp('..')) {
        if (first.t === 'utest') this.error('Unexpected ..');
        this.i++;
        const end = this.parseRangeEnd();
        const close = this.tok;
        if (!this.isOp(')') && !this.isOp(']')) this.error("Expected ')' or ']'");
        this.i++;
        return [
          { t: 'range', startIncl: false, start: first, end, endIncl: close.text === ']', pos: open.start },
        ];
      }
      const tests = [first];
      while (this.isOp(',')) {
        this.i++;
        tests.push(this.parsePositiveUnaryTest());
      }
      this.expectOp(')');
      return tests;
    } finally {
      this.leave();
    }
  }

  private parseRangeEnd(): Node {
    const saved = this.noFilter;
    this.noFilter = true;
    try {
      return this.parseAdditive();
    } finally {
      this.noFilter = saved;
    }
  }

  private parseAdditive(): Node {
    let left = this.parseMultiplicative();
    for (;;) {
      const t = this.tok;
      if (t.type === 'op' && (t.text === '+' || t.text === '-')) {
        this.i++;
        left = { t: 'arith', op: t.text as '+', left, right: this.parseMultiplicative(), pos: t.start };
      } else return left;
    }
  }

  private parseMultiplicative(): Node {
    let left = this.parseExponent();
    for (;;) {
      const t = this.tok;
      if (t.type === 'op' && (t.text === '*' || t.text === '/')) {
        this.i++;
        left = { t: 'arith', op: t.text as '*', left, right: this.parseExponent(), pos: t.start };
      } else return left;
    }
  }

  private parseExponent(): Node {
    let left = this.parseUnary();
    while (this.isOp('**')) {
      const pos = this.tok.start;
      this.i++;
      left = { t: 'arith', op: '**', left, right: this.parseUnary(), pos };
    }
    return left;
  }

  private parseUnary(): Node {
    if (this.isOp('-')) {
      const pos = this.tok.start;
      this.i++;
      this.enter();
      try {
        const arg = this.parseUnary();
        if (arg.t === 'num')
          return { t: 'num', value: typeof arg.value === 'number' ? -arg.value || 0 : arg.value.neg(), pos };
        return { t: 'neg', arg, pos };
      } finally {
        this.leave();
      }
    }
    if (this.isOp('+') && this.peek().type === 'num') this.i++;
    return this.parsePostfix();
  }

  private parsePostfix(): Node {
    let n = this.parsePrimary();
    for (;;) {
      const t = this.tok;
      if (this.isOp('.')) {
        this.i++;
        if (this.tok.type !== 'name') this.error('Expected a name after .');
        const name = this.parseName();
        n = { t: 'path', target: n, name, pos: t.start };
      } else if (this.isOp('[') && !this.noFilter) {
        this.i++;
        this.enter();
        const saved = this.noFilter;
        this.noFilter = false;
        this.pushFrame(['item']);
        try {
          const cond = this.parseExpression();
          this.expectOp(']');
          n = { t: 'filter', target: n, cond, pos: t.start };
        } finally {
          this.popFrame();
          this.noFilter = saved;
          this.leave();
        }
      } else if (this.isOp('(')) {
        this.i++;
        n = this.parseCallArgs(n, t.start);
      } else return n;
    }
  }

  private parseCallArgs(fn: Node, pos: number): Node {
    this.enter();
    const saved = this.noFilter;
    this.noFilter = false;
    try {
      const args: Node[] = [];
      let named: { name: string; value: Node }[] | undefined;
      if (this.isOp(')')) {
        this.i++;
        return { t: 'call', fn, args, pos };
      }
      // named arguments: name words followed by ':'
      let k = this.i;
      while (this.toks[k].type === 'name') k++;
      if (k > this.i && this.isOp(':', this.toks[k])) {
        named = [];
        for (;;) {
          const name = this.parseDeclName([]);
          this.expectOp(':');
          named.push({ name, value: this.parseExpression() });
          if (this.isOp(',')) {
            this.i++;
            continue;
          }
          break;
        }
      } else {
        for (;;) {
          args.push(this.parseExpression());
          if (this.isOp(',')) {
            this.i++;
            continue;
          }
          break;
        }
      }
      this.expectOp(')');
      return named ? { t: 'call', fn, args, named, pos } : { t: 'call', fn, args, pos };
    } finally {
      this.noFilter = saved;
      this.leave();
    }
  }

  /** Parse a (possibly multi-word) name at the current name token. */
  private parseName(): string {
    const start = this.i;
    const first = this.toks[start];
    let best: NameEntry | null = null;
    for (let f = this.frames.length - 1; f >= 0; f--) {
      const cands = this.frames[f].get(first.text);
      if (!cands) continue;
      for (const c of cands) {
        if (best && c.words.length <= best.words.length) continue;
        let ok = true;
        for (let k = 1; k < c.words.length; k++) {
          const t = this.toks[start + k];
          if (
            !t ||
            t.type === 'eof' ||
            t.type === 'str' ||
            t.text !== c.words[k] ||
            t.start > this.toks[start + k - 1].end !== c.gaps[k]
          ) {
            ok = false;
            break;
          }
        }
        if (ok) best = c;
      }
    }
    if (best && best.words.length > 1) {
      this.i += best.words.length;
      return best.name;
    }
    // fallback: join consecutive plain words
    this.i++;
    let last = first;
    while (
      this.tok.type === 'name' &&
      !STOP_WORDS.has(this.tok.text) &&
      !(best && best.words.length === 1 && this.isKnownSingle(this.tok.text))
    ) {
      last = this.tok;
      this.i++;
    }
    return this.src.slice(first.start, last.end).replace(/\s+/g, ' ');
  }

  private isKnownSingle(_w: string): boolean {
    return false;
  }

  private parsePrimary(): Node {
    const t = this.tok;
    switch (t.type) {
      case 'num': {
        this.i++;
        if (/^\d{1,15}$/.test(t.text)) return { t: 'num', value: Number(t.text), pos: t.start };
        if (t.text.length > 10000) this.error('Number literal too long');
        return { t: 'num', value: normNum(new Decimal(t.text)), pos: t.start };
      }
      case 'str':
        this.i++;
        return { t: 'str', value: t.value!, pos: t.start };
      case 'name': {
        switch (t.text) {
          case 'true':
          case 'false':
            this.i++;
            return { t: 'bool', value: t.text === 'true', pos: t.start };
          case 'null':
            this.i++;
            return { t: 'null', pos: t.start };
          case '?':
            this.i++;
            return { t: 'qmark', pos: t.start };
          case 'if':
            return this.parseIf();
          case 'for':
            if (this.peek().type === 'name') return this.parseFor();
            break;
          case 'some':
          case 'every':
            if (this.peek().type === 'name') return this.parseQuantified();
            break;
          case 'function':
            if (this.isOp('(', this.peek())) return this.parseFunctionDef();
            break;
        }
        if (RESERVED_START.has(t.text)) this.error(`Unexpected keyword '${t.text}'`);
        const name = this.parseName();
        return { t: 'name', name, pos: t.start };
      }
      case 'op':
        break;
      case 'eof':
        this.error('Unexpected end of expression');
      // falls through (error throws)
      default:
        this.error(`Unexpected character '${t.text}'`);
    }
    switch (t.text) {
      case '(': {
        this.i++;
        this.enter();
        const saved = this.noFilter;
        this.noFilter = false;
        try {
          const e = this.parseExpression();
          if (this.isOp('..')) {
            this.i++;
            const end = this.parseRangeEnd();
            return this.finishRange(false, e, end, t.start);
          }
          this.expectOp(')');
          return e;
        } finally {
          this.noFilter = saved;
          this.leave();
        }
      }
      case ']': {
        this.i++;
        this.enter();
        try {
          const s = this.parseExpression();
          this.expectOp('..');
          const end = this.parseRangeEnd();
          return this.finishRange(false, s, end, t.start);
        } finally {
          this.leave();
        }
      }
      case '[': {
        this.i++;
        this.enter();
        const saved = this.noFilter;
        this.noFilter = false;
        try {
          if (this.isOp(']')) {
            this.i++;
            return { t: 'list', items: [], pos: t.start };
          }
          const first = this.parseExpression();
          if (this.isOp('..')) {
            this.i++;
            const end = this.parseRangeEnd();
            return this.finishRange(true, first, end, t.start);
          }
          const items = [first];
          while (this.isOp(',')) {
            this.i++;
            items.push(this.parseExpression());
          }
          this.expectOp(']');
          return { t: 'list', items, pos: t.start };
        } finally {
          this.noFilter = saved;
          this.leave();
        }
      }
      case '{':
        return this.parseContext();
      case '@': {
        this.i++;
        const s = this.tok;
        if (s.type !== 'str') this.error('Expected a string after @');
        this.i++;
        return { t: 'at', value: s.value!, pos: t.start };
      }
      case '<':
      case '<=':
      case '>':
      case '>=':
      case '=':
      case '!=': {
        // DMN 1.4 unary-test range literal used as a value, e.g. `< 10`
        this.i++;
        const arg = this.parseAdditive();
        return { t: 'utest', op: t.text as '<', arg, pos: t.start };
      }
    }
    this.error(`Unexpected token '${t.text}'`);
  }

  private finishRange(startIncl: boolean, start: Node, end: Node, pos: number): Node {
    const close = this.tok;
    if (this.isOp(']')) {
      this.i++;
      return { t: 'range', startIncl, start, end, endIncl: true, pos };
    }
    if (this.isOp(')') || this.isOp('[')) {
      this.i++;
      return { t: 'range', startIncl, start, end, endIncl: false, pos };
    }
    this.error('Expected the end of a range', close);
  }

  private parseContext(): Node {
    const open = this.tok;
    this.i++;
    this.enter();
    const saved = this.noFilter;
    this.noFilter = false;
    const keys: string[] = [];
    this.pushFrame();
    try {
      const entries: { key: string; value: Node }[] = [];
      if (this.isOp('}')) {
        this.i++;
        return { t: 'context', entries, pos: open.start };
      }
      for (;;) {
        let key: string;
        const k = this.tok;
        if (k.type === 'str') {
          key = k.value!;
          this.i++;
        } else if (k.type === 'name' || k.type === 'other' || k.type === 'num') {
          let last = k;
          this.i++;
          while (this.tok.type !== 'eof' && !this.isOp(':') && !this.isOp(',') && !this.isOp('}')) {
            last = this.tok;
            this.i++;
          }
          key = this.src.slice(k.start, last.end).replace(/\s+/g, ' ');
        } else this.error('Expected a context key');
        this.expectOp(':');
        const value = this.parseExpression();
        entries.push({ key, value });
        keys.push(key);
        this.frames[this.frames.length - 1] = makeFrame(keys);
        if (this.isOp(',')) {
          this.i++;
          continue;
        }
        this.expectOp('}');
        return { t: 'context', entries, pos: open.start };
      }
    } finally {
      this.popFrame();
      this.noFilter = saved;
      this.leave();
    }
  }

  parseType(): TypeNode {
    this.enter();
    try {
      const t = this.tok;
      if (t.type !== 'name') this.error('Expected a type');
      const lt = this.peek();
      if ((t.text === 'list' || t.text === 'range') && this.isOp('<', lt)) {
        this.i += 2;
        const element = this.parseType();
        this.expectOp('>');
        return { kind: t.text, element };
      }
      if (t.text === 'context' && this.isOp('<', lt)) {
        this.i += 2;
        const entries: { name: string; type: TypeNode }[] = [];
        if (!this.isOp('>')) {
          for (;;) {
            const name =
              this.tok.type === 'str' ? (this.toks[this.i++].value as string) : this.parseDeclName([]);
            this.expectOp(':');
            entries.push({ name, type: this.parseType() });
            if (this.isOp(',')) {
              this.i++;
              continue;
            }
            break;
          }
        }
        this.expectOp('>');
        return { kind: 'context', entries };
      }
      if (t.text === 'function' && this.isOp('<', lt)) {
        this.i += 2;
        const params: TypeNode[] = [];
        if (!this.isOp('>')) {
          for (;;) {
            params.push(this.parseType());
            if (this.isOp(',')) {
              this.i++;
              continue;
            }
            break;
          }
        }
        this.expectOp('>');
        this.expectOp('->');
        return { kind: 'function', params, result: this.parseType() };
      }
      for (const words of TEMPORAL_TYPES) {
        if (words.every((w, k) => this.toks[this.i + k]?.text === w)) {
          this.i += words.length;
          return { kind: 'named', name: words.join(' ') };
        }
      }
      let last = t;
      this.i++;
      while (
        (this.tok.type === 'name' && !STOP_WORDS.has(this.tok.text)) ||
        (this.isOp('.') && this.peek().type === 'name')
      ) {
        last = this.tok;
        this.i++;
      }
      return { kind: 'named', name: this.src.slice(t.start, last.end).replace(/\s+/g, ' ') };
    } finally {
      this.leave();
    }
  }
}

/** Iterative depth check so that evaluation recursion stays bounded. */
function checkDepth(root: Node, _src: string): void {
  const stack: [unknown, number][] = [[root, 1]];
  while (stack.length) {
    const [n, d] = stack.pop()!;
    if (d > MAX_AST_DEPTH) {
      const pos = (n as Node).pos ?? 0;
      throw new FeelSyntaxError(
        `Expression too deeply nested (AST depth limit ${MAX_AST_DEPTH})`,
        1,
        pos + 1,
        '',
        pos,
      );
    }
    if (Array.isArray(n)) {
      for (const c of n) stack.push([c, d]);
      continue;
    }
    if (n && typeof n === 'object') {
      for (const [k, v] of Object.entries(n)) {
        if (k === 'value' && !(v && typeof v === 'object' && 't' in (v as object))) continue;
        if (v && typeof v === 'object') stack.push([v, 't' in (n as object) ? d + 1 : d]);
      }
    }
  }
}

export function parseExpression(src: string, opts?: ParseOptions): Node {
  return new Parser(src, opts).parseExpressionRoot();
}
export function parseUnaryTests(src: string, opts?: ParseOptions): Node {
  return new Parser(src, opts).parseUnaryTestsRoot();
}
