import { LambdaNode, LambdaSyntaxError, parseLambda } from '.';

function ast(source: string): LambdaNode {
  const r = parseLambda(source);
  if (!r.ok) throw new Error(`expected to parse: ${r.error.message}`);
  return r.ast;
}

function error(source: string): LambdaSyntaxError {
  const r = parseLambda(source);
  if (r.ok) throw new Error(`expected a syntax error for ${source}`);
  return r.error;
}

/** Compact rendering of an AST for structural assertions. */
function show(n: LambdaNode): string {
  switch (n.t) {
    case 'literal':
      return JSON.stringify(n.value);
    case 'identifier':
      return n.name;
    case 'member':
      return `${show(n.target)}${n.nullSafe ? '?.' : '.'}${n.name}`;
    case 'index':
      return `${show(n.target)}${n.nullSafe ? '?[' : '['}${show(n.index)}]`;
    case 'call':
      return `${show(n.target)}${n.nullSafe ? '?.' : '.'}${n.method}(${n.args.map(show).join(', ')})`;
    case 'static':
      return `${n.type}::${n.member}${n.args ? `(${n.args.map(show).join(', ')})` : ''}`;
    case 'unary':
      return `(${n.op}${show(n.arg)})`;
    case 'binary':
    case 'logical':
      return `(${show(n.left)} ${n.op} ${show(n.right)})`;
    case 'coalesce':
      return `(${show(n.left)} ?? ${show(n.right)})`;
    case 'conditional':
      return `(${show(n.test)} ? ${show(n.then)} : ${show(n.else)})`;
    case 'lambda':
      return `${n.param} => ${show(n.body)}`;
  }
}

const parsed = (source: string) => show(ast(source));

describe('parseLambda: literals', () => {
  it.each([
    ['42', '42'],
    ['3.25', '3.25'],
    ['.5', '0.5'],
    ['1e3', '1000'],
    ['2.5E-1', '0.25'],
    ['2m', '2'],
    ['2.75M', '2.75'],
    ['2d', '2'],
    ['1.5f', '1.5'],
    ['10L', '10'],
    ['10UL', '10'],
    ['0x1F', '31'],
    ['1_000', '1000'],
    ['-5', '-5'],
    ['"india"', '"india"'],
    ["'x'", '"x"'],
    ['"a\\"b"', '"a\\"b"'],
    ['"tab\\tnl\\n\\\\"', '"tab\\tnl\\n\\\\"'],
    ['"\\u00e9"', '"é"'],
    ['"\\x41"', '"A"'],
    ['"http://a/*b*/"', '"http://a/*b*/"'],
    ['"naïve ☃"', '"naïve ☃"'],
    ['@"c:\\dir ""q"""', '"c:\\\\dir \\"q\\""'],
    ['true', 'true'],
    ['False', 'false'],
    ['null', 'null'],
    ['NULL', 'null'],
  ])('%s', (source, expected) => expect(parsed(source)).toBe(expected));
});

describe('parseLambda: operators and precedence', () => {
  it.each([
    ['a == 1', '(a == 1)'],
    ['a = 1', '(a == 1)'],
    ['a != 1', '(a != 1)'],
    ['a <> 1', '(a != 1)'],
    ['a < 1 && b <= 2 || c > 3 && d >= 4', '(((a < 1) && (b <= 2)) || ((c > 3) && (d >= 4)))'],
    [
      'input1.country == "india" AND input1.loyaltyFactor <= 2 AND input1.totalPurchasesToDate >= 5000',
      '(((input1.country == "india") && (input1.loyaltyFactor <= 2)) && (input1.totalPurchasesToDate >= 5000))',
    ],
    ['a or b and c', '(a || (b && c))'],
    ['NOT a', '(!a)'],
    ['not a And Not b', '((!a) && (!b))'],
    ['!a || !b', '((!a) || (!b))'],
    ['a + b * c - d / e % f', '((a + (b * c)) - ((d / e) % f))'],
    ['(a + b) * c', '((a + b) * c)'],
    ['-a', '(-a)'],
    ['+a', '(+a)'],
    ['- -a', '(-(-a))'],
    ['a ? b : c', '(a ? b : c)'],
    ['a ? b : c ? d : e', '(a ? b : (c ? d : e))'],
    ['a ?? b', '(a ?? b)'],
    ['a ?? b ?? c', '(a ?? (b ?? c))'],
    ['a ?? b ? 1 : 2', '((a ?? b) ? 1 : 2)'],
    ['a || b ?? c', '((a || b) ?? c)'],
    ['x == 1 ? "one" : "other"', '((x == 1) ? "one" : "other")'],
    ['iif(a > 1, "big", "small")', '((a > 1) ? "big" : "small")'],
    ['IIF(a, 1, 2)', '(a ? 1 : 2)'],
    ['a.b.c', 'a.b.c'],
    ['a?.b.c', 'a?.b?.c'],
    ['a.b?.c.d', 'a.b?.c?.d'],
    ['a["k"]', 'a["k"]'],
    ['a[0].b', 'a[0].b'],
    ['a?[0]', 'a?[0]'],
    ['a[i + 1]', 'a[(i + 1)]'],
    ['c ?.5 : 1', '(c ? 0.5 : 1)'],
  ])('%s', (source, expected) => expect(parsed(source)).toBe(expected));

  it('keeps positions: operators at the operator, members at the member name, operands at their start', () => {
    const n = ast('  a.b == "x" && !c');
    if (n.t !== 'logical' || n.left.t !== 'binary') throw new Error('a && of == expected');
    expect(n.pos).toBe(13);
    expect(n.left.pos).toBe(6);
    expect(n.left.left.pos).toBe(4);
    expect(n.left.right.pos).toBe(9);
    expect(n.right.pos).toBe(16);
  });
});

describe('parseLambda: methods and members', () => {
  it.each([
    ['s.Contains("a")', 's.Contains("a")'],
    ['s.StartsWith("a") && s.EndsWith("z")', '(s.StartsWith("a") && s.EndsWith("z"))'],
    ['s.ToLower().Trim()', 's.ToLower().Trim()'],
    ['s.ToUpper()', 's.ToUpper()'],
    ['s.Length', 's.Length'],
    ['xs.Count', 'xs.Count'],
    ['xs.Count()', 'xs.Count()'],
    ['xs.Any()', 'xs.Any()'],
    ['xs.Any(x => x.a > 1)', 'xs.Any(x => (x.a > 1))'],
    ['xs.All((x) => x.ok)', 'xs.All(x => x.ok)'],
    ['xs.Where(x => x.a > 1).Count()', 'xs.Where(x => (x.a > 1)).Count()'],
    ['xs.Count(x => x.a)', 'xs.Count(x => x.a)'],
    ['xs.Select(x => x.price).Sum()', 'xs.Select(x => x.price).Sum()'],
    ['xs.Sum(x => x.price)', 'xs.Sum(x => x.price)'],
    ['o.Any(x => x.items.Any(i => i > x.min))', 'o.Any(x => x.items.Any(i => (i > x.min)))'],
    ['a.Equals(b)', 'a.Equals(b)'],
    ['a?.ToString()', 'a?.ToString()'],
    ['s.Substring(1, 2)', 's.Substring(1, 2)'],
    ['string.IsNullOrEmpty(x)', 'string::IsNullOrEmpty(x)'],
    ['String.IsNullOrWhiteSpace(x)', 'string::IsNullOrWhiteSpace(x)'],
    ['string.Empty', 'string::Empty'],
    ['Convert.ToInt32(x) + Convert.ToDecimal(y)', '(Convert::ToInt32(x) + Convert::ToDecimal(y))'],
    ['Convert.ToString(x).Length', 'Convert::ToString(x).Length'],
    ['Convert.ToDouble(x)', 'Convert::ToDouble(x)'],
    ['Math.Round(x, 2)', 'Math::Round(x, 2)'],
    ['DateTime.Now > d', '(DateTime::Now > d)'],
    ['DateTime.UtcNow.AddDays(-1)', 'DateTime::UtcNow.AddDays(-1)'],
    ['DateTime.Parse("2024-01-01")', 'DateTime::Parse("2024-01-01")'],
    ['int.Parse(s)', 'int::Parse(s)'],
    ['decimal.Parse(s)', 'decimal::Parse(s)'],
    ['@new.x', 'new.x'],
    ['base + out', '(base + out)'],
    ['a.new', 'a.new'],
  ])('%s', (source, expected) => expect(parsed(source)).toBe(expected));
});

describe('parseLambda: errors name the construct and its column', () => {
  it.each([
    ['new Foo()', "unsupported construct 'new' at column 1"],
    ['a == new Foo()', "unsupported construct 'new' at column 6"],
    ['x.Foo(1)', "unknown method 'Foo' at column 3"],
    ['input1.amount.Bar()', "unknown method 'Bar' at column 15"],
    ['Foo(1)', "unknown method 'Foo' at column 1"],
    ['string.Format("{0}", a)', "unknown method 'Format' at column 8"],
    ['DateTime.Tomorrow', "unknown member 'DateTime.Tomorrow' at column 10"],
    ['DateTime.Now()', "'DateTime.Now' is a property, not a method at column 10"],
    ['Convert.ToInt32', "'Convert.ToInt32' is a method: call it with (…) at column 9"],
    ['typeof(int)', "unsupported construct 'typeof' at column 1"],
    ['default(int)', "unsupported construct 'default' at column 1"],
    ['nameof(a)', "unsupported construct 'nameof' at column 1"],
    ['this.a', "unsupported construct 'this' at column 1"],
    ['await x', "unsupported construct 'await' at column 1"],
    ['throw x', "unsupported construct 'throw' at column 1"],
    ['x is string', "unsupported construct 'is' at column 3"],
    ['x as string', "unsupported construct 'as' at column 3"],
    ['x in (1, 2)', "unsupported construct 'in' at column 3"],
    ['x switch { _ => 1 }', "unsupported construct 'switch' at column 3"],
    ['x with { a = 1 }', "unsupported construct 'with' at column 3"],
    ['a == "x" && b == { }', "unsupported construct initializer '{' at column 18"],
    ['(int)x', "unsupported construct 'cast' at column 1"],
    ['(decimal) (a + b)', "unsupported construct 'cast' at column 1"],
    ['(int?)x', "unsupported construct 'cast' at column 1"],
    ['x => x > 1', "unsupported construct 'lambda' at column 1"],
    ['s.Contains(x => x)', "unsupported construct 'lambda' at column 12"],
    ['xs.Any((a, b) => a)', "unsupported construct 'lambda with several parameters' at column 8"],
    ['xs.Count(5)', "method 'Count' needs a lambda argument (x => …) at column 10"],
    ['xs.Where()', "method 'Where' takes 1 argument, not 0 at column 4"],
    ['s.Contains()', "method 'Contains' takes 1 argument, not 0 at column 3"],
    ['s.Trim(1)', "method 'Trim' takes 0 arguments, not 1 at column 3"],
    ['s.Substring()', "method 'Substring' takes 1 to 2 arguments, not 0 at column 3"],
    ['iif(a, b)', "method 'iif' takes 3 arguments, not 2 at column 1"],
    ['xs.Cast<int>()', "unsupported construct 'generic method Cast<int>' at column 4"],
    ['a++', "unsupported construct increment '++' at column 2"],
    ['a += 1', "unsupported construct compound assignment '+=' at column 3"],
    ['a & b', "unsupported construct bitwise operator '&' at column 3"],
    ['a | b', "unsupported construct bitwise operator '|' at column 3"],
    ['a ^ b', "unsupported construct bitwise operator '^' at column 3"],
    ['~a', "unsupported construct bitwise operator '~' at column 1"],
    ['a << 2', "unsupported construct bitwise operator '<<' at column 3"],
    ['new { a = 1 }', "unsupported construct 'new' at column 1"],
    ['{ a }', "unsupported construct initializer '{' at column 1"],
    ['a; b', "unsupported construct statement separator ';' at column 2"],
    ['$"x{a}"', "unsupported construct 'string interpolation' at column 1"],
    ['a // comment', "unsupported construct 'comment' at column 3"],
    ['a(1)', "unknown method 'a' at column 1"],
    ['(a)(1)', "unsupported construct 'delegate invocation' at column 4"],
    ['a[1, 2]', "unsupported construct 'multi-dimensional index' at column 4"],
    ['a[]', 'expected an index at column 3'],
    ['"abc', 'unterminated string literal at column 1'],
    ['a == "x\\q"', "unrecognized escape sequence '\\q' at column 8"],
    ['"\\u12"', "malformed escape sequence '\\u' at column 2"],
    ['12abc', 'malformed number literal at column 1'],
    ['1e+', 'malformed number literal at column 1'],
    ['0x', 'malformed hexadecimal literal at column 1'],
    ['a # b', "unexpected character '#' at column 3"],
    ['', 'empty expression at column 1'],
    ['   ', 'empty expression at column 4'],
    ['a ==', 'unexpected end of expression at column 5'],
    ['(a', "expected ')' but the expression ended at column 3"],
    ['(a b', "expected ')' but found 'b' at column 4"],
    ['a ? b', "expected ':' but the expression ended at column 6"],
    ['a b', "unexpected 'b' at column 3"],
    ['a )', "unexpected ')' at column 3"],
    ['()', 'empty parentheses at column 2'],
    ['a.', "expected a member name after '.' at column 3"],
    ['a.1', "unexpected '.1' at column 2"],
    ['a.(b)', "expected a member name after '.' but found '(' at column 3"],
    ['@is == 1 ? @x : b is c', "unsupported construct 'is' at column 19"],
    ['AND a', "unexpected keyword 'AND' at column 1"],
    ['a AND OR b', "unexpected keyword 'OR' at column 7"],
    ['a =>', "unsupported construct 'lambda' at column 1"],
    ['a\n  == new X()', "unsupported construct 'new' at line 2, column 6"],
  ])('%s', (source, message) => {
    const e = error(source);
    expect(e).toBeInstanceOf(LambdaSyntaxError);
    expect(e.message).toBe(message);
  });

  it('gives line, column and offset on the error', () => {
    const e = error('a == 1 &&\n b == new');
    expect(e).toMatchObject({ line: 2, column: 7, offset: 16, reason: "unsupported construct 'new'" });
  });

  it('refuses a non-string source', () => {
    expect(error(42 as unknown as string).message).toBe('expression must be a string at column 1');
  });

  it('refuses pathological nesting instead of overflowing the stack', () => {
    const deep = '('.repeat(5000) + 'a' + ')'.repeat(5000);
    expect(error(deep).message).toMatch(/^expression nested too deeply at column \d+$/);
    expect(error('!'.repeat(5000) + 'a').message).toMatch(/nested too deeply/);
    expect(error('a ?? '.repeat(5000) + 'b').message).toMatch(/nested too deeply/);
  });

  it('parses long flat chains without recursion trouble', () => {
    const src = Array.from({ length: 2000 }, (_, i) => `a${i} == ${i}`).join(' && ');
    expect(parseLambda(src).ok).toBe(true);
  });
});
