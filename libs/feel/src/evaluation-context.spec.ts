import {
  EvaluationAborted,
  STEP_BUDGET,
  currentEvaluation,
  type EvaluationContext,
} from './evaluation-context';
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
    // the outer loop: 100 range elements + 100 iterations + 100 calls of f; the inner loops are charged to
    // their own contexts
    expect(ctx!.stepsLeft).toBe(STEP_BUDGET - 300);
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

describe('bounded evaluations (runEvaluation with limits)', () => {
  const loop = compileExpression('count(for i in 1..1000 return i)');
  const cell = compileUnaryTests('count(for i in 1..1000 return i) > 0');

  it('one step budget for every piece of the evaluation, not one per piece', () => {
    // each piece alone takes ~2,000 steps: three fit in 10,000, six do not
    const pieces = (n: number) => () => {
      for (let i = 0; i < n; i++) {
        loop.evaluateIn(new Scope(null, null));
        cell.testIn(1, new Scope(null, null));
      }
    };
    expect(() => runEvaluation(null, pieces(2), { maxSteps: 10_000 })).not.toThrow();
    let error: unknown;
    try {
      runEvaluation(null, pieces(3), { maxSteps: 10_000 });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(EvaluationAborted);
    expect(error).toMatchObject({ reason: 'steps', code: 'EVALUATION_BUDGET_EXCEEDED' });
    expect(currentEvaluation()).toBeNull();
  });

  it('a deadline cuts a long evaluation off with DEADLINE_EXCEEDED', () => {
    const long = compileExpression('count(for i in 1..1000, j in 1..1000 return i) > 0');
    const started = Date.now();
    let error: unknown;
    try {
      runEvaluation(null, () => long.evaluateIn(new Scope(null, null)), { deadline: Date.now() + 50 });
    } catch (e) {
      error = e;
    }
    expect(error).toMatchObject({ reason: 'deadline', code: 'DEADLINE_EXCEEDED' });
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('user-function calls, sort comparisons and distinct values spend steps', () => {
    const spend = (src: string, maxSteps: number) => () =>
      runEvaluation(null, () => compileExpression(src).evaluateIn(new Scope(null, null)), { maxSteps });
    expect(spend('{f: function(n) if n = 0 then 0 else f(n - 1), r: f(300)}.r', 200)).toThrow(
      EvaluationAborted,
    );
    expect(spend('count(sort([5, 3, 1, 4, 2], function(x, y) x < y))', 10)).toThrow(EvaluationAborted);
    expect(spend('count(distinct values([1, 2, 3, 4, 5, 6, 7, 8]))', 20)).toThrow(EvaluationAborted);
    expect(spend('count(distinct values([1, 2, 3, 4, 5, 6, 7, 8]))', 100)()).toBe(8);
  });

  it('the call depth limit still gives null inside a bounded evaluation', () => {
    const warnings: string[] = [];
    const runaway = compileExpression('{f: function(n) f(n + 1), r: f(1)}.r');
    const value = runEvaluation(warnings, () => runaway.evaluateIn(new Scope(null, null)), {
      maxSteps: 1_000_000,
    });
    expect(value).toBeNull();
    expect(warnings).toContain('function call depth limit exceeded');
  });

  it('evaluations outside it keep their own budget and give null when they run out', () => {
    const inner = compileExpression('count(for i in 1..1000 return i)');
    const f = hostFunction(() => inner.evaluate());
    const outer = compileExpression('f(1)', { scope: ['f'] });
    expect(runEvaluation(null, () => outer.evaluateIn(new Scope({ f }, null)), { maxSteps: 10 })).toBe(1000);
  });

  it('a reused context restarts its limits without allocating', () => {
    const warnings: string[] = [];
    const ctx = runEvaluation(warnings, () => currentEvaluation()!, { maxSteps: 5 });
    expect(ctx.restart(7, Infinity)).toBe(ctx);
    expect(ctx).toMatchObject({ stepsLeft: 7, callDepth: 0, bounded: true, checkAt: 0 });
  });
});
