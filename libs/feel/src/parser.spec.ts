import { compileExpression, compileUnaryTests, FeelSyntaxError, parse, tryCompileExpression } from './index';
import { MAX_NESTING } from './parser';
import { fv } from './test-helpers';

describe('parser: names', () => {
  it('resolves names with spaces against the scope (longest match)', () => {
    expect(fv('Monthly Salary * 12', { 'Monthly Salary': 1000 })).toBe('12000');
    expect(fv('Monthly Salary + Monthly', { 'Monthly Salary': 10, Monthly: 1 })).toBe('11');
  });
  it('resolves names with additional symbols from the scope', () => {
    expect(fv("Applicant's age - 1", { "Applicant's age": 30 })).toBe('29');
    expect(fv('Pre-Bureau Risk + 1', { 'Pre-Bureau Risk': 1 })).toBe('2');
    expect(fv('a-b', { 'a-b': 5, a: 10, b: 1 })).toBe('5');
    expect(fv('a - b', { 'a-b': 5, a: 10, b: 1 })).toBe('9');
  });
  it('joins unknown consecutive words into one name', () => {
    const ast = parse('first name = "x"');
    expect(ast).toMatchObject({ t: 'cmp', left: { t: 'name', name: 'first name' } });
  });
  it('parses multi-word built-in names', () => {
    expect(fv('string length("abc") + day of year(date("2020-02-01"))')).toBe('35');
  });
  it('introduces context keys for later entries', () => {
    expect(fv('{Base Amount: 10, Total Due: Base Amount * 2}.Total Due')).toBe('20');
  });
});

describe('parser: precedence and forms', () => {
  it.each([
    ['1 + 2 * 3', '7'],
    ['(1 + 2) * 3', '9'],
    ['2 ** 3 ** 2', '64'],
    ['-2 ** 2', '4'],
    ['1 < 2 and 2 < 3 or false', 'true'],
    ['if 1 > 2 then "a" else if 2 > 1 then "b" else "c"', '"b"'],
    ['1 + if true then 1 else 2', '2'],
    ['5 between 1 and 10', 'true'],
    ['[1,2,3][item > 1][1]', '2'],
    ['{a: {b: [1, 2]}}.a.b[-1]', '2'],
    ['function(x, y) x * y', 'function(x, y)'],
    ['(function(x, y) x * y)(3, 4)', '12'],
    ['{f: function(a, b) a - b}.f(b: 1, a: 10)', '9'],
    ['for x in [1,2], y in [10, 20] return x + y', '[11, 21, 12, 22]'],
    ['for i in 1..4 return if i = 1 then 1 else i * partial[-1]', '[1, 2, 6, 24]'],
    ['every x in [1,2,3] satisfies x > 0', 'true'],
    ['some x in [1,2,3] satisfies x > 2', 'true'],
    ['x instance of list<number>', 'true'],
  ])('%s = %s', (src, expected) => {
    expect(fv(src, { x: [1, 2] })).toBe(expected);
  });
  it('parses ranges in all bracket styles', () => {
    expect(fv('[1..10]')).toBe('[1..10]');
    expect(fv(']1..10[')).toBe('(1..10)');
    expect(fv('(1..10]')).toBe('(1..10]');
    expect(fv('[1..10)')).toBe('[1..10)');
    expect(fv('< 10')).toBe('<10');
    expect(fv('>= 5')).toBe('>=5');
  });
  it('parses the full type grammar', () => {
    expect(fv('{a: 1} instance of context<a: number>')).toBe('true');
    expect(fv('[1..2] instance of range<number>')).toBe('true');
    expect(fv('(function(a: number) string(a)) instance of function<number>->string')).toBe('true');
    expect(fv('date and time("2020-01-01T00:00:00") instance of date and time')).toBe('true');
    expect(fv('@"P1D" instance of days and time duration')).toBe('true');
    expect(fv('@"P1Y" instance of years and months duration')).toBe('true');
  });
});

describe('parser: errors', () => {
  it('reports line, column and the offending token', () => {
    try {
      compileExpression('1 +\n  * 2');
      fail('expected a syntax error');
    } catch (e) {
      expect(e).toBeInstanceOf(FeelSyntaxError);
      const err = e as FeelSyntaxError;
      expect(err.line).toBe(2);
      expect(err.column).toBe(3);
      expect(err.token).toBe('*');
      expect(err.message).toMatch(/line 2, column 3/);
    }
  });
  it('offers a non-throwing variant', () => {
    const r = tryCompileExpression('if x then');
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error.token).toBe('<end of input>');
    expect(tryCompileExpression('1 + 1').ok).toBe(true);
  });
  it.each([
    '1 +',
    '(1',
    '[1, 2',
    '{a: }',
    'if 1 then 2',
    'for x in return 1',
    'a in',
    '"abc',
    '1 2 ++',
    'then',
  ])('rejects %p', (src) => {
    expect(() => compileExpression(src)).toThrow(FeelSyntaxError);
  });
  it('limits nesting depth with a clear error', () => {
    const deep = '('.repeat(MAX_NESTING + 10) + '1' + ')'.repeat(MAX_NESTING + 10);
    expect(() => compileExpression(deep)).toThrow(/nested too deeply/);
    const ok = '('.repeat(50) + '1' + ')'.repeat(50);
    expect(compileExpression(ok).evaluate()).toBe(1);
  });
  it('unary tests parse as unary tests only', () => {
    expect(() => compileUnaryTests('< ')).toThrow(FeelSyntaxError);
    expect(() => compileUnaryTests('')).toThrow(FeelSyntaxError);
  });
});
