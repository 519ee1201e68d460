import { RuleDocumentCompileError, compileRulesForm } from './index';
import type { CompiledRuleSet } from './types';

const riskTable = {
  name: 'risk',
  hitPolicy: 'First',
  inputColumns: [{ name: 'score', type: 'number', required: true }],
  outputColumns: [{ name: 'level' }, { name: 'limit' }],
  rows: [
    { id: 'r1', inputConditions: { score: '< 500' }, outputs: { level: 'high', limit: 1000 } },
    { id: 'r2', inputConditions: { score: '>= 500' }, outputs: { level: 'low', limit: 10000 } },
  ],
};

async function compileError(doc: unknown): Promise<RuleDocumentCompileError> {
  try {
    await compileRulesForm(doc);
  } catch (e) {
    expect(e).toBeInstanceOf(RuleDocumentCompileError);
    return e as RuleDocumentCompileError;
  }
  throw new Error('expected a compile error');
}

describe('compileRulesForm: FEEL conditions (default)', () => {
  let set: CompiledRuleSet;
  beforeAll(async () => {
    set = await compileRulesForm({
      rules: [
        { id: '1', name: 'Big', condition: 'input.amount > 100', output: { big: true, tier: 'B' } },
        { id: '2', name: 'Huge', condition: 'amount > 1000', output: { tier: 'H', huge: true } },
        { id: '3', name: 'Domestic', condition: 'facts.country = "IN"', output: { domestic: true } },
        { id: '4', name: 'Multi word', condition: 'tags[item = "vip"] != []', output: { vip: true } },
      ],
    });
  });

  it('is the rules shape with rule names in order', () => {
    expect(set.shape).toBe('rules');
    expect(set.ruleNames).toEqual(['Big', 'Huge', 'Domestic', 'Multi word']);
  });

  it('matches rules, merges outputs in order (later matches override keys) and traces each rule', async () => {
    const r = await set.evaluate({ amount: 5000, country: 'IN', tags: ['vip'] });
    expect(r.rulesMatched).toEqual(['Big', 'Huge', 'Domestic', 'Multi word']);
    expect(r.outputs).toEqual({ big: true, tier: 'H', huge: true, domestic: true, vip: true });
    expect(r.errors).toEqual([]);
    expect(r.rulesExecuted).toBe(4);
    expect(r.sideEffectsApplied).toBe(false);
    expect(r.traces.map((t) => [t.ruleName, t.matched, t.failReason])).toEqual([
      ['Big', true, null],
      ['Huge', true, null],
      ['Domestic', true, null],
      ['Multi word', true, null],
    ]);
    expect(r.traces[0].outputs).toEqual({ big: true, tier: 'B' });
    for (const t of r.traces) expect(t.durationMs).toBeGreaterThanOrEqual(0);
  });

  it('does not merge outputs of rules that do not match', async () => {
    const r = await set.evaluate({ amount: 150, country: 'FR', tags: [] });
    expect(r.rulesMatched).toEqual(['Big']);
    expect(r.outputs).toEqual({ big: true, tier: 'B' });
    expect(r.traces[1]).toMatchObject({ ruleName: 'Huge', matched: false, failReason: 'condition is false' });
    expect(r.errors).toEqual([]);
  });

  it('treats a null condition (missing input) as a failed expression', async () => {
    const r = await set.evaluate({ country: 'IN', tags: [] });
    expect(r.rulesMatched).toEqual(['Domestic']);
    expect(r.errors).toEqual([
      { ruleName: 'Big', code: 'EXPRESSION_FAILED', message: expect.stringMatching(/null, not a boolean/) },
      {
        ruleName: 'Huge',
        code: 'EXPRESSION_FAILED',
        message: "condition evaluated to null: unknown variable 'amount'",
      },
    ]);
    expect(r.traces[0].failReason).toBe('condition evaluated to null, not a boolean');
  });

  it('skips traces and timing with trace: false', async () => {
    const r = await set.evaluate({ amount: 5000, country: 'IN', tags: [] }, { trace: false });
    expect(r.traces).toEqual([]);
    expect(r.rulesMatched).toEqual(['Big', 'Huge', 'Domestic']);
  });

  it('does not let a caller change the compiled outputs through a result', async () => {
    const nested = await compileRulesForm({
      rules: [{ id: '1', name: 'R', condition: 'true', output: { list: [1, 2], obj: { a: 1 } } }],
    });
    const first = await nested.evaluate({});
    expect(() => (first.outputs.list as number[]).push(3)).toThrow();
    expect((await nested.evaluate({})).outputs).toEqual({ list: [1, 2], obj: { a: 1 } });
  });

  it('does not freeze or change the document it compiled', async () => {
    const doc = { rules: [{ id: '1', name: 'R', condition: 'true', output: { obj: { a: 1 } } }] };
    await compileRulesForm(doc);
    expect(Object.isFrozen(doc.rules[0].output.obj)).toBe(false);
  });

  it('lets a fact named input win over the alias', async () => {
    const s = await compileRulesForm({ rules: [{ id: '1', name: 'R', condition: 'input.x = 1' }] });
    expect((await s.evaluate({ input: { x: 1 } })).rulesMatched).toEqual(['R']);
    expect((await s.evaluate({ x: 1 })).rulesMatched).toEqual(['R']);
  });
});

describe('compileRulesForm: runtime failures', () => {
  it('records non-boolean results and FEEL errors as EXPRESSION_FAILED non-matches, and goes on', async () => {
    const set = await compileRulesForm({
      rules: [
        { id: '1', name: 'Number', condition: 'amount * 2', output: { a: 1 } },
        { id: '2', name: 'Text', condition: '"yes"', output: { b: 1 } },
        { id: '3', name: 'Bad add', condition: 'amount + "x" > 1', output: { c: 1 } },
        { id: '4', name: 'Ok', condition: 'amount > 1', output: { d: 1 } },
      ],
    });
    const r = await set.evaluate({ amount: 5 });
    expect(r.rulesMatched).toEqual(['Ok']);
    expect(r.outputs).toEqual({ d: 1 });
    expect(r.errors.map((e) => [e.ruleName, e.code])).toEqual([
      ['Number', 'EXPRESSION_FAILED'],
      ['Text', 'EXPRESSION_FAILED'],
      ['Bad add', 'EXPRESSION_FAILED'],
    ]);
    expect(r.errors[0].message).toBe('condition evaluated to number 10, not a boolean');
    expect(r.errors[1].message).toBe('condition evaluated to string "yes", not a boolean');
    expect(r.errors[2].message).toMatch(/^condition evaluated to null: /);
    expect(r.traces.map((t) => t.matched)).toEqual([false, false, false, true]);
  });

  it('stops at a passed deadline with DEADLINE_EXCEEDED', async () => {
    const set = await compileRulesForm({
      rules: [{ id: '1', name: 'R', condition: 'true', output: { a: 1 } }],
    });
    const r = await set.evaluate({}, { deadline: Date.now() - 1 });
    expect(r.errors).toEqual([{ code: 'DEADLINE_EXCEEDED', message: expect.any(String) }]);
    expect(r.rulesExecuted).toBe(0);
    expect(r.outputs).toEqual({});
  });

  it('stops when the signal is aborted with CANCELLED', async () => {
    const set = await compileRulesForm({ rules: [{ id: '1', name: 'R', condition: 'true' }] });
    const controller = new AbortController();
    controller.abort();
    const r = await set.evaluate({}, { signal: controller.signal });
    expect(r.errors.map((e) => e.code)).toEqual(['CANCELLED']);
  });

  it('runs to the end with a deadline in the future', async () => {
    const set = await compileRulesForm({
      rules: [{ id: '1', name: 'R', condition: 'true', output: { a: 1 } }],
    });
    const r = await set.evaluate({}, { deadline: Date.now() + 60_000 });
    expect(r.rulesMatched).toEqual(['R']);
  });
});

describe('compileRulesForm: =expression outputs', () => {
  it('evaluates FEEL output expressions against the scope when the rule matches', async () => {
    const set = await compileRulesForm({
      rules: [
        {
          id: '1',
          name: 'Fee',
          condition: 'amount > 0',
          output: {
            fee: '=amount * 0.1',
            label: 'fee',
            text: '=string(amount) + " EUR"',
            bad: '=amount + "x"',
          },
        },
      ],
    });
    const r = await set.evaluate({ amount: 200 });
    expect(r.outputs).toEqual({ label: 'fee', fee: 20, text: '200 EUR', bad: null });
    expect(r.errors).toEqual([
      {
        ruleName: 'Fee',
        code: 'EXPRESSION_FAILED',
        message: expect.stringMatching(/^output 'bad' evaluated to null: /),
      },
    ]);
    expect(r.traces[0].outputs).toEqual({ label: 'fee', fee: 20, text: '200 EUR', bad: null });
  });

  it('evaluates lambda output expressions in a lambda document', async () => {
    const set = await compileRulesForm({
      expressionLanguage: 'lambda',
      rules: [
        {
          id: '1',
          name: 'Fee',
          condition: 'input1.amount > 0',
          output: {
            fee: '=input1.amount * 0.1',
            upper: '=input1.name.ToUpper()',
            when: '=DateTime.Parse("2024-01-01")',
          },
        },
      ],
    });
    const r = await set.evaluate({ amount: 200, name: 'ada' });
    expect(r.outputs).toEqual({ fee: 20, upper: 'ADA', when: '2024-01-01T00:00:00.000Z' });
  });

  it('refuses an output expression that does not compile, naming its path', async () => {
    const e = await compileError({
      rules: [{ id: '1', name: 'R', condition: 'true', output: { x: '=1 +' } }],
    });
    expect(e.problems).toEqual([
      { path: 'rules[0].output.x', message: expect.stringMatching(/^FEEL syntax error/) },
    ]);
  });
});

describe('compileRulesForm: C#-lambda conditions', () => {
  it('runs the RulesEngine discount sample', async () => {
    const set = await compileRulesForm({
      expressionLanguage: 'lambda',
      rules: [
        {
          id: 'd10',
          name: 'GiveDiscount10',
          condition:
            'input1.country == "india" AND input1.loyaltyFactor <= 2 AND input1.totalPurchasesToDate >= 5000',
          output: { discount: 10 },
        },
        {
          id: 'd20',
          name: 'GiveDiscount20',
          condition:
            'input1.country == "india" AND input1.loyaltyFactor >= 3 AND input1.totalPurchasesToDate >= 10000',
          output: { discount: 20 },
        },
      ],
    });
    const gold = await set.evaluate({ country: 'india', loyaltyFactor: 3, totalPurchasesToDate: 12000 });
    expect(gold.rulesMatched).toEqual(['GiveDiscount20']);
    expect(gold.outputs).toEqual({ discount: 20 });
    const silver = await set.evaluate({ country: 'india', loyaltyFactor: 1, totalPurchasesToDate: 6000 });
    expect(silver.outputs).toEqual({ discount: 10 });
  });

  it('reports runtime errors with their column', async () => {
    const set = await compileRulesForm({
      expressionLanguage: 'lambda',
      rules: [{ id: '1', name: 'R', condition: 'input1.address.city == "x"' }],
    });
    const r = await set.evaluate({});
    expect(r.errors).toEqual([
      {
        ruleName: 'R',
        code: 'EXPRESSION_FAILED',
        message: "condition failed: null reference: cannot read 'city' of null at column 16",
      },
    ]);
  });

  it('refuses unsupported constructs at compile time, naming path and column', async () => {
    const e = await compileError({
      expressionLanguage: 'lambda',
      rules: [
        { id: '1', name: 'A', condition: 'new Foo()' },
        { id: '2', name: 'B', condition: 'input1.x.Foo()' },
      ],
    });
    expect(e.problems).toEqual([
      { path: 'rules[0].condition', message: "unsupported construct 'new' at column 1" },
      { path: 'rules[1].condition', message: "unknown method 'Foo' at column 10" },
    ]);
    expect(e.message).toBe(
      "rules[0].condition: unsupported construct 'new' at column 1; rules[1].condition: unknown method 'Foo' at column 10",
    );
  });
});

describe('compileRulesForm: embedded decision tables', () => {
  const doc = {
    decisionTables: [riskTable],
    rules: [
      { id: '1', name: 'High risk', condition: 'risk.level = "high"', output: { review: true } },
      { id: '2', name: 'Over limit', condition: 'amount > risk.limit', output: { blocked: true } },
    ],
  };

  it('evaluates tables first, puts their outputs in scope and in the outputs', async () => {
    const set = await compileRulesForm(doc);
    expect(set.ruleNames).toEqual(['High risk', 'Over limit']);
    const r = await set.evaluate({ score: 300, amount: 5000 });
    expect(r.outputs).toEqual({ risk: { level: 'high', limit: 1000 }, review: true, blocked: true });
    expect(r.rulesMatched).toEqual(['High risk', 'Over limit']);
    expect(r.rulesExecuted).toBe(2);
    expect(r.traces[0]).toMatchObject({
      ruleName: 'risk',
      kind: 'decision-table',
      matched: true,
      failReason: null,
      outputs: { level: 'high', limit: 1000 },
    });
    const low = await set.evaluate({ score: 800, amount: 5000 });
    expect(low.outputs).toEqual({ risk: { level: 'low', limit: 10000 } });
  });

  it('records a failing table and evaluates the rules with a null result', async () => {
    const set = await compileRulesForm(doc);
    const r = await set.evaluate({ amount: 5 });
    expect(r.errors[0]).toEqual({
      ruleName: 'risk',
      code: 'MISSING_REQUIRED_INPUT',
      message: expect.any(String),
    });
    expect(r.outputs).toEqual({ risk: null });
    expect(r.traces[0]).toMatchObject({ ruleName: 'risk', matched: false });
    expect(r.rulesMatched).toEqual([]);
  });

  it('gives null for a table without a matching row', async () => {
    const set = await compileRulesForm({
      decisionTables: [{ ...riskTable, rows: [riskTable.rows[0]] }],
      rules: [{ id: '1', name: 'R', condition: 'risk = null', output: { none: true } }],
    });
    const r = await set.evaluate({ score: 900 });
    expect(r.outputs).toEqual({ risk: null, none: true });
    expect(r.traces[0]).toMatchObject({ matched: false, failReason: 'no row matched' });
  });

  it('lets the table result shadow a fact of the same name; lambda conditions see it too', async () => {
    const set = await compileRulesForm({
      expressionLanguage: 'lambda',
      decisionTables: [riskTable],
      rules: [{ id: '1', name: 'R', condition: 'risk.level == "low" && input1.amount > 1' }],
    });
    expect((await set.evaluate({ score: 900, amount: 2, risk: 'fact' })).rulesMatched).toEqual(['R']);
  });

  it('refuses broken or duplicate tables with their path', async () => {
    const e = await compileError({
      decisionTables: [
        riskTable,
        riskTable,
        { name: 'bad', hitPolicy: 'Nope', inputColumns: [], outputColumns: [], rows: [] },
        {},
      ],
      rules: [{ id: '1', name: 'R', condition: 'true' }],
    });
    expect(e.problems.map((p) => p.path)).toEqual(
      expect.arrayContaining(['decisionTables[1].name', 'decisionTables[2]', 'decisionTables[3].name']),
    );
    expect(e.problems.find((p) => p.path === 'decisionTables[1].name')?.message).toBe(
      "duplicate table name 'risk'",
    );
  });
});

describe('compileRulesForm: document problems', () => {
  it.each([
    [null, [{ path: '', message: 'must be a JSON object' }]],
    [{ rules: 'x' }, [{ path: 'rules', message: 'must be an array' }]],
    [{ rules: [5] }, [{ path: 'rules[0]', message: 'must be an object' }]],
    [
      { rules: [{ id: '1', name: 'R' }] },
      [{ path: 'rules[0].condition', message: 'required (non-empty string)' }],
    ],
    [
      { rules: [{ id: '1', name: 'R', condition: 'true', output: 3 }] },
      [{ path: 'rules[0].output', message: 'must be an object of output facts' }],
    ],
    [{ rules: [{ condition: 'true' }] }, [{ path: 'rules[0].name', message: 'required (non-empty string)' }]],
    [
      { expressionLanguage: 'js', rules: [{ id: '1', name: 'R', condition: 'true' }] },
      [{ path: 'expressionLanguage', message: "must be 'feel' or 'lambda'" }],
    ],
    [
      { decisionTables: {}, rules: [{ id: '1', name: 'R', condition: 'true' }] },
      [{ path: 'decisionTables', message: 'must be an array of decision tables' }],
    ],
  ])('%j', async (doc, problems) => {
    expect((await compileError(doc)).problems).toEqual(problems);
  });

  it('names a FEEL syntax error with its path', async () => {
    const e = await compileError({ rules: [{ id: '1', name: 'R', condition: 'amount >' }] });
    expect(e.problems).toEqual([
      { path: 'rules[0].condition', message: expect.stringMatching(/^FEEL syntax error: .*column \d+/) },
    ]);
  });

  it('uses the id when a rule has no name', async () => {
    const set = await compileRulesForm({ rules: [{ id: 'r-1', condition: 'true' }] });
    expect(set.ruleNames).toEqual(['r-1']);
  });

  it('accepts an empty rule list (nothing matches)', async () => {
    const set = await compileRulesForm({ rules: [] });
    expect(await set.evaluate({ a: 1 })).toEqual({
      outputs: {},
      traces: [],
      errors: [],
      rulesMatched: [],
      rulesExecuted: 0,
      sideEffectsApplied: false,
    });
  });
});
