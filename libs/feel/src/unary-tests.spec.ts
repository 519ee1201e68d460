import { compileUnaryTests, FeelSyntaxError, parseDate } from './index';

const t = (src: string, input: unknown, ctx?: Record<string, unknown>) =>
  compileUnaryTests(src, { scope: ctx ? Object.keys(ctx) : [] }).test(input, ctx);

describe('unary tests', () => {
  it.each([
    ['-', 5, true],
    ['-', null, true],
    ['< 10', 5, true],
    ['< 10', 10, false],
    ['<= 10', 10, true],
    ['> 10', '11', null],
    ['[1..10]', 10, true],
    ['[1..10)', 10, false],
    [']1..10]', 1, false],
    ['(1..10)', 5, true],
    ['1, 2, 3', 2, true],
    ['1, 2, 3', 4, false],
    ['"a","b","c"', 'b', true],
    ['"a","b","c"', 'd', false],
    ['not("a", "b")', 'c', true],
    ['not("a", "b")', 'a', false],
    ['not(< 5)', 7, true],
    ['? > 5', 7, true],
    ['? > 5 and ? < 10', 12, false],
    ['odd(?)', 3, true],
    ['[1, 2, 3]', 2, true],
    ['true', true, true],
    ['false', true, false],
    ['null', null, true],
    ['10', 10, true],
    ['= 10', 10, true],
    ['!= 10', 10, false],
    ['date("2020-01-01")', parseDate('2020-01-01'), true],
    ['< 10, > 20', 25, true],
  ])('%s with %p -> %p', (src, input, expected) => {
    expect(t(src, input)).toBe(expected);
  });
  it('references other names in scope', () => {
    expect(t('< Max Amount', 5, { 'Max Amount': 10 })).toBe(true);
    expect(t('[lo..hi]', 5, { lo: 1, hi: 4 })).toBe(false);
  });
  it('compiles once and evaluates many times', () => {
    const c = compileUnaryTests('[1..10]');
    const results = [0, 1, 5, 10, 11].map((x) => c.test(x));
    expect(results).toEqual([false, true, true, true, false]);
  });
  it('reports syntax errors', () => {
    expect(() => compileUnaryTests('[1..')).toThrow(FeelSyntaxError);
  });
  it('collects warnings', () => {
    const r = compileUnaryTests('< 10').testDetailed('x');
    expect(r.value).toBeNull();
    expect(r.warnings.length).toBeGreaterThan(0);
  });
  it.each(['>> 5', '== 5', '<> 5', '=> 5', '=< 5', '>=< 5', '< = 5', '< <5', '!= = 1'])(
    'refuses %s (two comparison operators: a typo that would never match), naming the position',
    (src) => {
      let error: unknown;
      try {
        compileUnaryTests(src);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(FeelSyntaxError);
      expect((error as FeelSyntaxError).message).toMatch(/cannot be followed by .* at line 1, column \d+/);
    },
  );
  it('still accepts a comparison with a negative number and not(...) of comparisons', () => {
    expect(t('> -5', 0)).toBe(true);
    expect(t('not(> 5, = 1)', 3)).toBe(true);
    expect(t('!= 5', 3)).toBe(true);
  });
});
