import type { LambdaNode } from './ast';
import { LambdaSyntaxError } from './errors';
import { Token, tokenize } from './lexer';
import { CAST_TYPES, INSTANCE_METHODS, MethodSignature, STATIC_MEMBERS, STATIC_TYPES } from './members';

/** C# keywords that start an expression we do not run (named in the error). */
const UNSUPPORTED_PRIMARY = new Set([
  'new',
  'typeof',
  'default',
  'sizeof',
  'nameof',
  'checked',
  'unchecked',
  'await',
  'throw',
  'this',
  'delegate',
  'stackalloc',
]);
/** C# keywords that follow an operand (`x is T`, `x as T`, `x switch {…}`, `x with {…}`, `x in (…)`). */
const UNSUPPORTED_INFIX = new Set(['is', 'as', 'switch', 'with', 'in']);

const MAX_DEPTH = 200;

/**
 * Recursive-descent parser of C#-style lambda expressions (the bodies Microsoft RulesEngine stores:
 * System.Linq.Dynamic.Core syntax). Precedence, lowest first: `?:`, `??`, `||`/`OR`, `&&`/`AND`,
 * `== != = <>`, `< <= > >=`, `+ -`, `* / %`, unary `! NOT - +`, postfix `. ?. [] ?[] ()`.
 * Keywords `AND`, `OR`, `NOT`, `true`, `false`, `null`, `iif` are case-insensitive (as in Dynamic LINQ).
 */
class Parser {
  private readonly tokens: Token[];
  private i = 0;
  private depth = 0;

  constructor(private readonly source: string) {
    this.tokens = tokenize(source);
  }

  parseRoot(): LambdaNode {
    if (this.peek().kind === 'eof') this.fail('empty expression', this.peek());
    const node = this.parseExpression();
    const t = this.peek();
    if (t.kind !== 'eof') {
      if (t.kind === 'op' && t.text === '=>') this.fail("unsupported construct 'lambda'", t);
      this.unexpected(t);
    }
    return node;
  }

  // ------------------------------------------------------------------ helpers

  private peek(offset = 0): Token {
    return this.tokens[Math.min(this.i + offset, this.tokens.length - 1)];
  }
  private next(): Token {
    const t = this.tokens[this.i < this.tokens.length - 1 ? this.i++ : this.i];
    if (t.kind === 'invalid') this.fail(t.text, t);
    return t;
  }
  private isOp(text: string, offset = 0): boolean {
    const t = this.peek(offset);
    return t.kind === 'op' && t.text === text;
  }
  private isWord(word: string, offset = 0): boolean {
    const t = this.peek(offset);
    return t.kind === 'ident' && !t.verbatim && t.text.toLowerCase() === word;
  }
  private fail(reason: string, at: Token | number): never {
    throw new LambdaSyntaxError(reason, this.source, typeof at === 'number' ? at : at.start);
  }
  private unexpected(t: Token): never {
    if (t.kind === 'invalid') this.fail(t.text, t);
    if (t.kind === 'eof') this.fail('unexpected end of expression', t);
    this.fail(`unexpected '${t.text}'`, t);
  }
  private expectOp(text: string): Token {
    const t = this.peek();
    if (t.kind === 'op' && t.text === text) return this.next();
    if (t.kind === 'invalid') this.fail(t.text, t);
    if (t.kind === 'eof') this.fail(`expected '${text}' but the expression ended`, t);
    return this.fail(`expected '${text}' but found '${t.text}'`, t);
  }
  private enter(t: Token): void {
    if (++this.depth > MAX_DEPTH) this.fail('expression nested too deeply', t);
  }

  // ------------------------------------------------------------------ grammar

  private parseExpression(): LambdaNode {
    this.enter(this.peek());
    try {
      return this.parseConditional();
    } finally {
      this.depth--;
    }
  }

  private parseConditional(): LambdaNode {
    const test = this.parseCoalesce();
    if (!this.isOp('?')) return test;
    const q = this.next();
    const then = this.parseExpression();
    this.expectOp(':');
    const otherwise = this.parseExpression();
    return { t: 'conditional', pos: q.start, test, then, else: otherwise };
  }

  private parseCoalesce(): LambdaNode {
    const left = this.parseOr();
    if (!this.isOp('??')) return left;
    const t = this.next();
    this.enter(t);
    try {
      const right = this.parseCoalesce(); // right-associative: a ?? b ?? c is a ?? (b ?? c)
      return { t: 'coalesce', pos: t.start, left, right };
    } finally {
      this.depth--;
    }
  }

  private parseOr(): LambdaNode {
    let left = this.parseAnd();
    while (this.isOp('||') || this.isWord('or')) {
      const t = this.next();
      const right = this.parseAnd();
      left = { t: 'logical', pos: t.start, op: '||', left, right };
    }
    return left;
  }

  private parseAnd(): LambdaNode {
    let left = this.parseEquality();
    while (this.isOp('&&') || this.isWord('and')) {
      const t = this.next();
      const right = this.parseEquality();
      left = { t: 'logical', pos: t.start, op: '&&', left, right };
    }
    return left;
  }

  private parseEquality(): LambdaNode {
    let left = this.parseRelational();
    for (;;) {
      const t = this.peek();
      if (t.kind !== 'op') return left;
      let op: '==' | '!=';
      if (t.text === '==' || t.text === '=') op = '==';
      else if (t.text === '!=' || t.text === '<>') op = '!=';
      else return left;
      this.next();
      const right = this.parseRelational();
      left = { t: 'binary', pos: t.start, op, left, right };
    }
  }

  private parseRelational(): LambdaNode {
    let left = this.parseAdditive();
    for (;;) {
      const t = this.peek();
      if (t.kind === 'ident' && !t.verbatim && UNSUPPORTED_INFIX.has(t.text))
        this.fail(`unsupported construct '${t.text}'`, t);
      if (t.kind !== 'op' || (t.text !== '<' && t.text !== '<=' && t.text !== '>' && t.text !== '>='))
        return left;
      this.next();
      const right = this.parseAdditive();
      left = { t: 'binary', pos: t.start, op: t.text, left, right };
    }
  }

  private parseAdditive(): LambdaNode {
    let left = this.parseMultiplicative();
    for (;;) {
      const t = this.peek();
      if (t.kind !== 'op' || (t.text !== '+' && t.text !== '-')) return left;
      this.next();
      const right = this.parseMultiplicative();
      left = { t: 'binary', pos: t.start, op: t.text, left, right };
    }
  }

  private parseMultiplicative(): LambdaNode {
    let left = this.parseUnary();
    for (;;) {
      const t = this.peek();
      if (t.kind !== 'op' || (t.text !== '*' && t.text !== '/' && t.text !== '%')) return left;
      this.next();
      const right = this.parseUnary();
      left = { t: 'binary', pos: t.start, op: t.text, left, right };
    }
  }

  private parseUnary(): LambdaNode {
    const t = this.peek();
    const isNot = t.kind === 'op' && t.text === '!';
    if (isNot || this.isWord('not') || (t.kind === 'op' && (t.text === '-' || t.text === '+'))) {
      this.next();
      this.enter(t);
      try {
        const arg = this.parseUnary();
        const op = isNot || t.kind === 'ident' ? '!' : (t.text as '-' | '+');
        // fold `-5` into a literal so `-2147483648` and `-2.5m` are plain numbers
        if (op === '-' && arg.t === 'literal' && typeof arg.value === 'number')
          return { t: 'literal', pos: t.start, value: -arg.value };
        return { t: 'unary', pos: t.start, op, arg };
      } finally {
        this.depth--;
      }
    }
    return this.parsePostfix(this.parsePrimary());
  }

  private parsePostfix(node: LambdaNode): LambdaNode {
    let nullSafe = false;
    for (;;) {
      const t = this.peek();
      if (t.kind !== 'op') return node;
      if (t.text === '.' || t.text === '?.') {
        this.next();
        if (t.text === '?.') nullSafe = true;
        const name = this.next();
        if (name.kind !== 'ident') {
          if (name.kind === 'eof') this.fail(`expected a member name after '${t.text}'`, name);
          this.fail(`expected a member name after '${t.text}' but found '${name.text}'`, name);
        }
        if (this.isOp('(')) {
          const signature = INSTANCE_METHODS.get(name.text);
          if (!signature) this.fail(`unknown method '${name.text}'`, name);
          const args = this.parseArguments(name, signature);
          node = { t: 'call', pos: name.start, target: node, method: name.text, args, nullSafe };
        } else if (this.isOp('<')) {
          this.failIfGeneric(name);
          node = { t: 'member', pos: name.start, target: node, name: name.text, nullSafe };
        } else node = { t: 'member', pos: name.start, target: node, name: name.text, nullSafe };
      } else if (t.text === '[' || t.text === '?[') {
        this.next();
        if (t.text === '?[') nullSafe = true;
        if (this.isOp(']')) this.fail('expected an index', this.peek());
        const index = this.parseExpression();
        if (this.isOp(',')) this.fail("unsupported construct 'multi-dimensional index'", this.peek());
        this.expectOp(']');
        node = { t: 'index', pos: t.start, target: node, index, nullSafe };
      } else if (t.text === '(') {
        this.fail("unsupported construct 'delegate invocation'", t);
      } else return node;
    }
  }

  /** `x.Cast<int>()`, `x.OfType<T>()`: generic method calls. */
  private failIfGeneric(name: Token): void {
    // a `<` right after a member name followed by a type and `>(` is a generic call, not a comparison
    const a = this.peek(1);
    const b = this.peek(2);
    if (a.kind === 'ident' && b.kind === 'op' && b.text === '>' && this.peek(3).text === '(')
      this.fail(`unsupported construct 'generic method ${name.text}<${a.text}>'`, name);
  }

  private parseArguments(name: Token, signature: MethodSignature): LambdaNode[] {
    this.expectOp('(');
    const args: LambdaNode[] = [];
    if (!this.isOp(')')) {
      for (;;) {
        args.push(this.parseArgument(signature.lambda === true));
        if (!this.isOp(',')) break;
        this.next();
      }
    }
    this.expectOp(')');
    if (signature.lambda)
      for (const a of args)
        if (a.t !== 'lambda') this.fail(`method '${name.text}' needs a lambda argument (x => …)`, a.pos);
    if (args.length < signature.min || args.length > signature.max) {
      const expected =
        signature.min === signature.max
          ? `${signature.min} argument${signature.min === 1 ? '' : 's'}`
          : `${signature.min} to ${signature.max} arguments`;
      this.fail(`method '${name.text}' takes ${expected}, not ${args.length}`, name);
    }
    return args;
  }

  /** An argument: an expression, or `x => body` / `(x) => body` where lambdas are allowed. */
  private parseArgument(lambdaAllowed: boolean): LambdaNode {
    const t = this.peek();
    let param: Token | null = null;
    let bodyAt = 0;
    if (t.kind === 'ident' && this.isOp('=>', 1)) {
      param = t;
      bodyAt = 2;
    } else if (t.kind === 'op' && t.text === '(' && this.peek(1).kind === 'ident' && this.isOp(')', 2)) {
      if (this.isOp('=>', 3)) {
        param = this.peek(1);
        bodyAt = 4;
      }
    } else if (t.kind === 'op' && t.text === '(' && this.looksLikeMultiParameterLambda()) {
      this.fail("unsupported construct 'lambda with several parameters'", t);
    }
    if (!param) return this.parseExpression();
    if (!lambdaAllowed) this.fail("unsupported construct 'lambda'", t);
    this.i += bodyAt;
    this.enter(t);
    try {
      const body = this.parseExpression();
      return { t: 'lambda', pos: t.start, param: param.text, body };
    } finally {
      this.depth--;
    }
  }

  private looksLikeMultiParameterLambda(): boolean {
    // ( a , b ... ) =>
    let k = 1;
    while (this.peek(k).kind === 'ident' && this.isOp(',', k + 1)) k += 2;
    return k > 1 && this.peek(k).kind === 'ident' && this.isOp(')', k + 1) && this.isOp('=>', k + 2);
  }

  private parsePrimary(): LambdaNode {
    const t = this.next();
    switch (t.kind) {
      case 'number':
        return { t: 'literal', pos: t.start, value: t.value as number };
      case 'string':
        return { t: 'literal', pos: t.start, value: t.value as string };
      case 'eof':
        return this.unexpected(t);
      case 'op':
        if (t.text === '(') return this.parseParenthesized(t);
        if (t.text === '=>') this.fail("unsupported construct 'lambda'", t);
        return this.unexpected(t);
    }
    // identifiers and keywords
    if (t.verbatim) return { t: 'identifier', pos: t.start, name: t.text };
    const lower = t.text.toLowerCase();
    if (lower === 'true') return { t: 'literal', pos: t.start, value: true };
    if (lower === 'false') return { t: 'literal', pos: t.start, value: false };
    if (lower === 'null') return { t: 'literal', pos: t.start, value: null };
    if (lower === 'and' || lower === 'or') this.fail(`unexpected keyword '${t.text}'`, t);
    if (UNSUPPORTED_PRIMARY.has(t.text) || lower === 'new') this.fail(`unsupported construct '${t.text}'`, t);
    if (this.isOp('=>')) this.fail("unsupported construct 'lambda'", t);
    if (lower === 'iif' && this.isOp('(')) return this.parseIif(t);
    const staticType = STATIC_TYPES.get(t.text);
    if (staticType && this.isOp('.')) return this.parseStatic(t, staticType);
    if (this.isOp('(')) this.fail(`unknown method '${t.text}'`, t);
    return { t: 'identifier', pos: t.start, name: t.text };
  }

  private parseParenthesized(open: Token): LambdaNode {
    const a = this.peek();
    if (
      a.kind === 'ident' &&
      CAST_TYPES.has(a.text) &&
      (this.isOp(')', 1) || this.isOp('?', 1)) &&
      this.startsOperand(this.isOp(')', 1) ? 2 : 3)
    )
      this.fail("unsupported construct 'cast'", open);
    if (this.isOp(')')) this.fail('empty parentheses', this.peek());
    const inner = this.parseExpression();
    this.expectOp(')');
    return inner;
  }

  private startsOperand(offset: number): boolean {
    const t = this.peek(offset);
    return (
      t.kind === 'ident' ||
      t.kind === 'number' ||
      t.kind === 'string' ||
      (t.kind === 'op' && (t.text === '(' || t.text === '!'))
    );
  }

  /** Dynamic LINQ `iif(test, then, else)`. */
  private parseIif(t: Token): LambdaNode {
    const args = this.parseArguments(t, { min: 3, max: 3 });
    return { t: 'conditional', pos: t.start, test: args[0], then: args[1], else: args[2] };
  }

  private parseStatic(typeToken: Token, type: string): LambdaNode {
    this.expectOp('.');
    const name = this.next();
    if (name.kind !== 'ident') this.fail(`expected a member name after '${typeToken.text}.'`, name);
    const members = STATIC_MEMBERS[type];
    const isCall = this.isOp('(');
    if (!members.has(name.text)) {
      if (isCall) this.fail(`unknown method '${name.text}'`, name);
      this.fail(`unknown member '${typeToken.text}.${name.text}'`, name);
    }
    const signature = members.get(name.text) ?? null;
    if (signature === null) {
      if (isCall) this.fail(`'${typeToken.text}.${name.text}' is a property, not a method`, name);
      return { t: 'static', pos: typeToken.start, type, member: name.text, args: null };
    }
    if (!isCall) this.fail(`'${typeToken.text}.${name.text}' is a method: call it with (…)`, name);
    const args = this.parseArguments(name, signature);
    return { t: 'static', pos: typeToken.start, type, member: name.text, args };
  }
}

/** Parses a lambda expression; throws LambdaSyntaxError naming the construct and its position. */
export function parseLambdaOrThrow(source: string): LambdaNode {
  if (typeof source !== 'string') throw new LambdaSyntaxError('expression must be a string', '', 0);
  return new Parser(source).parseRoot();
}

export type LambdaParseResult = { ok: true; ast: LambdaNode } | { ok: false; error: LambdaSyntaxError };

/**
 * Parses a C#-style lambda expression (Microsoft RulesEngine `Expression`). Never throws: an unsupported
 * construct, unknown method or syntax error comes back as `{ ok: false, error }` whose message names it and
 * its column (`unsupported construct 'new' at column 5`).
 */
export function parseLambda(source: string): LambdaParseResult {
  try {
    return { ok: true, ast: parseLambdaOrThrow(source) };
  } catch (e) {
    if (e instanceof LambdaSyntaxError) return { ok: false, error: e };
    if (e instanceof RangeError)
      return { ok: false, error: new LambdaSyntaxError('expression too complex', source, 0) };
    throw e;
  }
}
