import fc from 'fast-check';
import {
  compileExpression,
  compileUnaryTests,
  FeelSyntaxError,
  tryCompileExpression,
  tryCompileUnaryTests,
} from './index';
import { fv, warningsOf } from './test-helpers';

function timed<T>(fn: () => T): { value: T; ms: number } {
  const t = Date.now();
  const value = fn();
  return { value, ms: Date.now() - t };
}

describe('hostile input', () => {
  it('deep nesting is a compile error, not a stack overflow', () => {
    for (const open of ['(', '[', '{a:', 'if true then ', '-', 'not(']) {
      const close = open === '(' || open === 'not(' ? ')' : open === '[' ? ']' : open === '{a:' ? '}' : '';
      const src =
        open.repeat(5000) + '1' + (open.startsWith('if') ? ' else 1'.repeat(5000) : close.repeat(5000));
      const r = tryCompileExpression(src);
      expect(r.ok).toBe(false);
      if (!r.ok) expect(r.error).toBeInstanceOf(FeelSyntaxError);
    }
  });
  it('long flat chains are bounded by the AST depth limit', () => {
    const r = tryCompileExpression(Array(5000).fill('1').join(' + '));
    expect(r.ok).toBe(false);
    const ok = compileExpression(Array(300).fill('1').join(' + '));
    expect(ok.evaluate()).toBe(300);
  });
  it('huge literals', () => {
    expect(fv('9'.repeat(5000) + ' > 1')).toBe('true');
    const s = 'x'.repeat(200_000);
    expect(compileExpression(`string length("${s}")`).evaluate()).toBe(200_000);
  });
  it('a 1 MB expression compiles or fails quickly', () => {
    const src = '[' + Array(200_000).fill('1').join(',') + ']';
    expect(src.length).toBeGreaterThan(300_000);
    const { value, ms } = timed(() => compileExpression(src).evaluate());
    expect(Array.isArray(value) && value.length).toBe(200_000);
    expect(ms).toBeLessThan(5000);
    const mb = '"' + 'a'.repeat(1_000_000) + '"';
    expect((compileExpression(mb).evaluate() as string).length).toBe(1_000_000);
  });
  it('pathological regular expressions do not hang', () => {
    const input = 'a'.repeat(40) + '!';
    for (const p of ['(a+)+$', '(a*)*$', '(a|aa)+$', '(.*a){25}', '(a|a)*$', '(\\\\w+\\\\s?)*$']) {
      const { value, ms } = timed(() => compileExpression(`matches("${input}", "${p}")`).evaluate());
      expect(value).toBeNull();
      expect(ms).toBeLessThan(1000);
    }
    expect(warningsOf('matches("aaa", "(a+)+")').join()).toMatch(/catastrophic/);
  });
  it('runaway iteration is stopped', () => {
    const { value, ms } = timed(() => compileExpression('count(for i in 1..100000000 return i)').evaluate());
    expect(value).toBeNull();
    expect(ms).toBeLessThan(5000);
    const nested = timed(() =>
      compileExpression('count(for i in 1..5000, j in 1..5000 return 1)').evaluate(),
    );
    expect(nested.value).toBeNull();
  });
  it('unbounded recursion is stopped', () => {
    const r = compileExpression('{f: function(n) f(n + 1), r: f(1)}.r').evaluateDetailed();
    expect(r.value).toBeNull();
  });
  it('prototype keys are plain data', () => {
    expect(fv('{__proto__: 1}.__proto__')).toBe('1');
    expect(fv('x.constructor', { x: {} })).toBe('null');
    expect(fv('toString')).toBe('null');
  });
  it('random bytes never crash the compiler', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), (s) => {
        const r = tryCompileExpression(s);
        if (r.ok) r.value.evaluate({});
        const u = tryCompileUnaryTests(s);
        if (u.ok) u.value.test(1);
      }),
      { numRuns: 1500 },
    );
  });
  it('random token soup never crashes', () => {
    const tok = fc.constantFrom(
      '1',
      '"s"',
      'x',
      '+',
      '-',
      '*',
      '/',
      '**',
      '(',
      ')',
      '[',
      ']',
      '{',
      '}',
      ':',
      ',',
      '..',
      'if',
      'then',
      'else',
      'for',
      'in',
      'return',
      'some',
      'every',
      'satisfies',
      'and',
      'or',
      'not',
      '<',
      '>',
      '=',
      '!=',
      'function',
      'item',
      '?',
      'null',
      'true',
      '@"2020-01-01"',
      'date',
      'instance',
      'of',
      'number',
      'between',
      '.',
      'sum',
      'list<',
    );
    fc.assert(
      fc.property(fc.array(tok, { maxLength: 40 }), (toks) => {
        const src = toks.join(' ');
        const r = tryCompileExpression(src);
        if (r.ok) r.value.evaluate({ x: [1, 2, 3] });
        const u = tryCompileUnaryTests(src);
        if (u.ok) u.value.test(5, { x: 1 });
      }),
      { numRuns: 3000 },
    );
  });
  it('arithmetic on random decimals is exact and never throws', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: -1e9, max: 1e9 }),
        fc.integer({ min: -1e9, max: 1e9 }),
        fc.integer({ min: 0, max: 6 }),
        (a, b, scale) => {
          const x = a / 10 ** scale;
          const y = b / 10 ** scale;
          const e = compileExpression('x + y - y = x', { scope: ['x', 'y'] });
          expect(e.evaluate({ x, y })).toBe(true);
        },
      ),
      { numRuns: 500 },
    );
  });
  it('unary tests on random inputs return boolean or null', () => {
    const u = compileUnaryTests('< 10, [20..30], "a", not(null)');
    fc.assert(
      fc.property(fc.anything(), (v) => {
        const r = u.test(v);
        expect(r === true || r === false || r === null).toBe(true);
      }),
      { numRuns: 500 },
    );
  });
  it('compileUnaryTests rejects non-strings', () => {
    expect(() => compileUnaryTests(42 as unknown as string)).toThrow(FeelSyntaxError);
  });
});
