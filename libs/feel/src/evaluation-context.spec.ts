import { STEP_BUDGET, currentEvaluation, type EvaluationContext } from './evaluation-context';
import {
  FeelFunction,
  Scope,
  compileExpression,
  compileUnaryTests,
  runEvaluation,
  type FeelValue,
} from './index';

/** a host function value FEEL can call: `invoke` runs with the arguments */
function hostFunction(invoke: (args: FeelValue[]) => FeelValue): FeelFunction {
  return new FeelFunction([{ name: 'x' }], invoke);
}

describe('per-evaluation context', () => {
  it('a nested evaluation from a host function keeps its own warnings', () => {
    const inner = compileExpression('"b" * 2');
    let innerWarnings: string[] = [];
    const f = hostFunction(() => {
      innerWarnings = inner.evaluateDetailed().warnings;
      return 1;
    });
    const outer = compileExpression('[1 / 0, f(1), "a" + 1]', { scope: ['f'] });
    const r = outer.evaluateDetailed({ f });
    expect(r.value).toEqual([null, 1, null]);
    expect(r.warnings).toEqual(['division by zero', 'cannot add string and number']);
    expect(innerWarnings).toEqual(['cannot multiply string and number']);
  });

  it('a nested evaluation neither resets nor spends the outer step budget', () => {
    const inner = compileExpression('count(for i in 1..1000 return i)');
    const f = hostFunction(() => inner.evaluate());
    const outer = compileExpression('for i in 1..100 return f(i)', { scope: ['f'] });
    let ctx: EvaluationContext | null = null;
    runEvaluation(null, () => {
      expect(outer.evaluateIn(new Scope({ f }, null))).toEqual(Array(100).fill(1000));
      ctx = currentEvaluation();
    });
    // the outer loop: 100 range elements + 100 iterations; the inner loops are charged to their own contexts
    expect(ctx!.stepsLeft).toBe(STEP_BUDGET - 200);
  });

  it('a nested evaluation starts at call depth 0 and leaves the outer depth alone', () => {
    const depths: number[] = [];
    const probe = hostFunction(() => {
      depths.push(currentEvaluation()!.callDepth);
      return null;
    });
    const inner = compileExpression('probe(1)', { scope: ['probe'] });
    const f = hostFunction(() => {
      inner.evaluate({ probe });
      return currentEvaluation()!.callDepth;
    });
    // g -> f: the outer evaluation is two calls deep when f runs the inner one
    const outer = compileExpression('{g: function(n) f(n), r: g(1)}.r', { scope: ['f'] });
    expect(outer.evaluate({ f })).toBe(2);
    expect(depths).toEqual([1]);
  });

  it('pieces evaluated with evaluateIn / testIn inside runEvaluation share its warnings', () => {
    const a = compileExpression('x + "s"', { scope: ['x'] });
    const t = compileUnaryTests('< "a"');
    const warnings: string[] = [];
    runEvaluation(warnings, () => {
      a.evaluateIn(new Scope({ x: 1 }, null));
      t.testIn(5, new Scope(null, null));
    });
    expect(warnings).toEqual(['cannot add number and string', 'cannot compare number and string']);
  });

  it('runEvaluation inside an evaluation collects only its own warnings', () => {
    const own: string[] = [];
    const piece = compileExpression('1 / 0');
    const f = hostFunction(() => runEvaluation(own, () => piece.evaluateIn(new Scope(null, null))));
    const outer = compileExpression('[f(1), -"x"]', { scope: ['f'] });
    expect(outer.evaluateDetailed({ f }).warnings).toEqual(['cannot negate string']);
    expect(own).toEqual(['division by zero']);
  });

  it('two evaluations of the same compiled expression keep their own warnings', () => {
    const e = compileExpression('if n > 0 then [n / 0, f(n - 1)] else null', { scope: ['n', 'f'] });
    const nested: string[][] = [];
    const f = hostFunction(([n]) => {
      const r = e.evaluateDetailed({ n, f });
      nested.push(r.warnings);
      return r.value;
    });
    const r = e.evaluateDetailed({ n: 2, f });
    expect(r.warnings).toEqual(['division by zero']);
    expect(nested).toEqual([[], ['division by zero']]);
  });

  it('no evaluation stays in progress after one ends, also when it was aborted', () => {
    const runaway = compileExpression('{f: function(n) f(n + 1), r: f(1)}.r');
    expect(runaway.evaluateDetailed().warnings).toContain('function call depth limit exceeded');
    expect(currentEvaluation()).toBeNull();
    expect(compileExpression('for i in 1..3 return i').evaluate()).toEqual([1, 2, 3]);
    expect(currentEvaluation()).toBeNull();
  });
});
