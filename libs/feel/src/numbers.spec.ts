import { compileExpression, Decimal } from './index';
import { fv } from './test-helpers';

describe('decimal arithmetic (DECIMAL128: 34 digits, half-even)', () => {
  it.each([
    ['0.1 + 0.2', '0.3'],
    ['0.1 + 0.2 = 0.3', 'true'],
    ['1 / 3', '0.3333333333333333333333333333333333'],
    ['2 / 3', '0.6666666666666666666666666666666667'],
    ['10 / 4', '2.5'],
    ['1.1 * 1.1', '1.21'],
    ['9007199254740993 + 1', '9007199254740994'],
    ['99999999999999999999 * 99999999999999999999', '9999999999999999999800000000000000000000'], // rounded to 34 digits,
    ['2 ** 10', '1024'],
    ['2 ** -1', '0.5'],
    ['-(-5)', '5'],
    ['10 - 0.000001', '9.999999'],
    ['1 / 0', 'null'],
    ['0 / 0', 'null'],
    ['1.0 = 1', 'true'],
    ['1e3 + 1', '1001'],
  ])('%s = %s', (src, expected) => {
    expect(fv(src)).toBe(expected);
  });
  it('keeps integer fast path exact and switches to decimals beyond 2^53', () => {
    const e = compileExpression('a * b', { scope: ['a', 'b'] });
    expect(e.evaluate({ a: 3, b: 4 })).toBe(12);
    const big = e.evaluate({ a: 2 ** 52, b: 4 });
    expect(big).toBeInstanceOf(Decimal);
    expect(String(big)).toBe('18014398509481984');
  });
  it('treats host doubles exactly by their decimal rendering', () => {
    expect(fv('a + b', { a: 0.1, b: 0.2 })).toBe('0.3');
  });
  it('numeric comparisons across representations', () => {
    expect(fv('a < 0.5', { a: 0.25 })).toBe('true');
    expect(fv('1/3 * 3 = 1')).toBe('false');
    expect(fv('decimal(1/3 * 3, 2) = 1')).toBe('true');
  });
});

describe('three-valued logic', () => {
  it.each([
    ['true and null', 'null'],
    ['false and null', 'false'],
    ['null and false', 'false'],
    ['true or null', 'true'],
    ['false or null', 'null'],
    ['null or null', 'null'],
    ['"x" and true', 'null'],
    ['1 or false', 'null'],
    ['not(null)', 'null'],
    ['not(true)', 'false'],
    ['null = null', 'true'],
    ['1 = null', 'false'],
    ['1 < null', 'null'],
    ['1 = "1"', 'null'],
    ['if null then 1 else 2', '2'],
  ])('%s = %s', (src, expected) => {
    expect(fv(src)).toBe(expected);
  });
});
