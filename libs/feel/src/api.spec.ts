import {
  compileExpression,
  Decimal,
  evaluate,
  FeelDate,
  fromJs,
  parseDuration,
  suggest,
  toJs,
  validate,
} from './index';

describe('public API', () => {
  it('evaluate() converts host values in and out', () => {
    expect(evaluate('a + b', { a: 1, b: 2 })).toBe(3);
    expect(evaluate('1/4')).toBe(0.25);
    expect(evaluate('{x: [1, 2][item > 1], d: date("2020-01-01")}')).toEqual({ x: [2], d: '2020-01-01' });
    expect(evaluate('x.y * 2', { x: { y: 21 } })).toBe(42);
  });
  it('toJs / fromJs', () => {
    expect(toJs(new Decimal('1.5'))).toBe(1.5);
    expect(toJs(new Decimal('0.1').div(3), { decimals: 'string' })).toBe(
      '0.03333333333333333333333333333333333',
    );
    expect(toJs(parseDuration('P1D'))).toBe('P1D');
    expect(fromJs({ a: [1, NaN], d: new Date(Date.UTC(2020, 0, 2, 3, 4, 5)) })).toMatchObject({
      a: [1, null],
    });
    expect(String((fromJs({ d: new Date(Date.UTC(2020, 0, 2, 3, 4, 5)) }) as { d: unknown }).d)).toBe(
      '2020-01-02T03:04:05Z',
    );
    expect(fromJs(10n)).toBeInstanceOf(Decimal);
  });
  it('reuses a compiled expression without copying the context', () => {
    const e = compileExpression('income - expenses', { scope: ['income', 'expenses'] });
    const ctx = { income: 100, expenses: 40 };
    expect(e.evaluate(ctx)).toBe(60);
    ctx.expenses = 50;
    expect(e.evaluate(ctx)).toBe(50);
  });
  it('evaluateDetailed reports warnings', () => {
    const r = compileExpression('unknownName + 1').evaluateDetailed({});
    expect(r.value).toBeNull();
    expect(r.warnings.join()).toMatch(/unknownName/);
  });
  it('validate checks syntax and unknown names', () => {
    expect(validate('Age > 18 and Country = "NL"', { Age: 'number', Country: 'string' })).toEqual({
      valid: true,
      message: 'OK',
    });
    const bad = validate('Age >', { Age: 'number' });
    expect(bad.valid).toBe(false);
    expect(bad.message).toMatch(/line 1/);
    expect(validate('Agee > 1', { Age: 'number' })).toMatchObject({
      valid: false,
      message: "Unknown name: 'Agee'",
    });
    expect(validate('< 10, > 20', {})).toEqual({ valid: true, message: 'OK' });
    expect(validate('for x in [1] return x + y', {}).message).toMatch(/'y'/);
    expect(validate('[{a: 1}][a > 0]', {}).valid).toBe(true);
  });
  it('suggest offers names in scope and built-ins with signatures', () => {
    const s = suggest('Monthly Sal', 11, ['Monthly Salary', 'Age']);
    expect(s[0]).toMatchObject({ label: 'Monthly Salary', kind: 'variable', from: 0 });
    const f = suggest('1 + string l', 12, []);
    expect(f.find((x) => x.label === 'string length')).toMatchObject({
      kind: 'function',
      detail: 'string length(string)',
      from: 4,
    });
    expect(suggest('da', 2).some((x) => x.label === 'date and time')).toBe(true);
  });
  it('exports the value model', () => {
    const d = compileExpression('date("2020-01-02")').evaluate();
    expect(d).toBeInstanceOf(FeelDate);
    expect((d as FeelDate).year).toBe(2020);
  });
});
