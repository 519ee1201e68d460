import { compileExpression, Decimal, decimalToNumber, toJs } from './index';
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

describe('decimalToNumber (a Decimal to the nearest double)', () => {
  const cases = [
    '0',
    '-0',
    '1',
    '-1',
    '0.5',
    '0.05',
    '12.5',
    '0.1',
    '0.3',
    '8751.4',
    '1e22',
    '1e23',
    '1e-22',
    '1e-23',
    '123456789.1234',
    '99999999999999',
    '999999999999999',
    '12345678901234567890',
    '0.000001',
    '-7.25',
    '3.333333333333333333333333333333333',
    '9007199254740993',
    '1.7976931348623157e308',
    '5e-324',
    '2.2250738585072014e-308',
    '1e400',
    '-1e400',
    '123.4560000',
    '1234567.1234567',
  ];
  it.each(cases)('%s as Decimal#toNumber gives it', (text) => {
    const value = new Decimal(text);
    expect(Object.is(decimalToNumber(value), value.toNumber())).toBe(true);
  });
  it('equals Decimal#toNumber on the results of arithmetic (products, quotients, sums of random decimals)', () => {
    let seed = 7;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    const randomDecimal = () =>
      new Decimal(Math.floor(random() * 10 ** Math.floor(random() * 16))).div(
        10 ** Math.floor(random() * 12),
      );
    for (let i = 0; i < 20_000; i++) {
      const a = randomDecimal();
      const b = randomDecimal();
      for (const value of [a, a.times(b), a.plus(b), a.minus(b), b.isZero() ? a : a.div(b)])
        expect(decimalToNumber(value)).toBe(value.toNumber());
    }
  });
  it('NaN and infinities as decimal.js gives them', () => {
    expect(decimalToNumber(new Decimal(NaN))).toBeNaN();
    expect(decimalToNumber(new Decimal(Infinity))).toBe(Infinity);
    expect(decimalToNumber(new Decimal(-Infinity))).toBe(-Infinity);
  });
  it('is what toJs answers for a decimal result', () => {
    expect(toJs(compileExpression('income * 0.2', { scope: ['income'] }).evaluate({ income: 43757 }))).toBe(
      8751.4,
    );
  });
});
