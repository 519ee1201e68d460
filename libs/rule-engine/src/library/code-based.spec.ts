import type { CodeRuleImplementation } from '../rulesets/types';
import { CodeBasedCompileError, compileCodeBased } from './code-based';

const resolver = (rules: Record<string, CodeRuleImplementation['evaluate']>) => ({
  get: (code: string) => (rules[code] ? { code, evaluate: rules[code] } : undefined),
});

const codeRules = resolver({
  BOOL: (facts: any) => facts.amount > 10,
  FACTS: (facts: any, p) => ({ tier: facts.amount > Number(p.limit ?? 100) ? 'gold' : 'silver' }),
  STRUCT: async (facts: any) => ({ matched: facts.tier === 'gold', outputs: { bonus: 5 } }),
  BOOM: () => {
    throw new Error('division by zero');
  },
  ODD: () => 42 as never,
  NOTHING: () => undefined as never,
});

const compileError = async (doc: unknown, ctx = { codeRules }) => {
  try {
    await compileCodeBased(doc, ctx);
  } catch (error) {
    expect(error).toBeInstanceOf(CodeBasedCompileError);
    return error as CodeBasedCompileError;
  }
  throw new Error('expected a compile error');
};

describe('compileCodeBased', () => {
  it('runs enabled rules in order, normalises results and merges matched outputs', async () => {
    const compiled = await compileCodeBased(
      {
        type: 'code-based',
        rules: [
          { code: 'BOOL', id: 'big' },
          { code: 'FACTS', parameters: { limit: 50 } },
          { code: 'STRUCT', name: 'gold bonus' },
          { code: 'MISSING_BUT_OFF', enabled: false },
        ],
      },
      { codeRules },
    );
    expect(compiled.shape).toBe('code-based');
    expect(compiled.ruleNames).toEqual(['big', 'FACTS', 'gold bonus']);
    const result = await compiled.evaluate({ amount: 75 });
    // STRUCT sees FACTS' output (tier) because each rule gets input + outputs so far.
    expect(result.outputs).toEqual({ tier: 'gold', bonus: 5 });
    expect(result.rulesMatched).toEqual(['big', 'FACTS', 'gold bonus']);
    expect(result.rulesExecuted).toBe(3);
    expect(result.errors).toEqual([]);
    expect(result.sideEffectsApplied).toBe(false);
    expect(
      result.traces.map(({ ruleName, matched, failReason }) => ({ ruleName, matched, failReason })),
    ).toEqual([
      { ruleName: 'big', matched: true, failReason: null },
      { ruleName: 'FACTS', matched: true, failReason: null },
      { ruleName: 'gold bonus', matched: true, failReason: null },
    ]);
    expect(result.traces[0].durationMs).toEqual(expect.any(Number));
  });

  it('does not merge outputs of unmatched rules', async () => {
    const compiled = await compileCodeBased({ rules: [{ code: 'BOOL' }, { code: 'STRUCT' }] }, { codeRules });
    const result = await compiled.evaluate({ amount: 1, tier: 'silver' });
    expect(result.outputs).toEqual({});
    expect(result.rulesMatched).toEqual([]);
    expect(result.traces.map((t) => t.failReason)).toEqual([
      'rule returned false',
      'rule returned matched: false',
    ]);
  });

  it('turns a throwing rule into a RULE_FAILED error and a non-match, and keeps going', async () => {
    const compiled = await compileCodeBased(
      { rules: [{ code: 'BOOM', id: 'boom' }, { code: 'ODD' }, { code: 'NOTHING' }, { code: 'BOOL' }] },
      { codeRules },
    );
    const result = await compiled.evaluate({ amount: 20 });
    expect(result.errors).toEqual([
      { ruleName: 'boom', code: 'RULE_FAILED', message: 'division by zero' },
      { ruleName: 'ODD', code: 'RULE_FAILED', message: 'rule returned an unsupported result (number)' },
    ]);
    expect(result.traces.map((t) => [t.ruleName, t.matched, t.failReason])).toEqual([
      ['boom', false, 'division by zero'],
      ['ODD', false, 'rule returned an unsupported result (number)'],
      ['NOTHING', false, 'rule returned no result'],
      ['BOOL', true, null],
    ]);
    expect(result.rulesMatched).toEqual(['BOOL']);
  });

  it('treats an object with matched plus other keys as facts', async () => {
    const compiled = await compileCodeBased(
      { rules: [{ code: 'X' }] },
      {
        codeRules: resolver({ X: () => ({ matched: false, score: 3 }) }),
      },
    );
    const result = await compiled.evaluate({});
    expect(result.rulesMatched).toEqual(['X']);
    expect(result.outputs).toEqual({ matched: false, score: 3 });
  });

  it('leaves traces out with trace: false and stops at a passed deadline', async () => {
    const compiled = await compileCodeBased({ rules: [{ code: 'BOOL' }, { code: 'FACTS' }] }, { codeRules });
    expect((await compiled.evaluate({ amount: 20 }, { trace: false })).traces).toEqual([]);
    const late = await compiled.evaluate({ amount: 20 }, { deadline: Date.now() - 1 });
    expect(late.rulesExecuted).toBe(0);
    expect(late.errors[0]).toMatchObject({ code: 'DEADLINE_EXCEEDED', ruleName: 'BOOL' });
  });

  it('refuses unknown codes, naming each one with its path', async () => {
    const error = await compileError({ rules: [{ code: 'BOOL' }, { code: 'NOPE' }, { code: 'GONE' }] });
    expect(error.code).toBe('UNKNOWN_RULE_CODE');
    expect(error.problems).toEqual([
      { path: 'rules[1].code', message: "unknown rule code 'NOPE'" },
      { path: 'rules[2].code', message: "unknown rule code 'GONE'" },
    ]);
    expect(error.message).toContain("unknown rule code 'NOPE'");
  });

  it('refuses every code when the codeRules port is missing', async () => {
    const error = await compileError({ rules: [{ code: 'BOOL' }] }, {} as never);
    expect(error.message).toContain('codeRules port is missing');
  });

  it('refuses malformed documents', async () => {
    const error = await compileError({
      type: 'flow-graph',
      rules: [{ code: '' }, { code: 'A', parameters: 3, enabled: 'y' }],
    });
    expect(error.code).toBe('INVALID_CODE_BASED_RULESET');
    expect(error.problems.map((p) => p.path)).toEqual([
      'type',
      'rules[0].code',
      'rules[1].parameters',
      'rules[1].enabled',
    ]);
    expect((await compileError({ rules: [] })).problems[0].path).toBe('rules');
    expect((await compileError(null)).problems[0].path).toBe('');
  });
});
