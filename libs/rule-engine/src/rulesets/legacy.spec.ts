import { LegacyWorkflowOutputs, RuleDocumentCompileError, compileLegacyWorkflow } from './index';
import type { CompiledRuleSet, RuleSetEvaluation } from './types';

/** The Microsoft RulesEngine "Discount" sample workflow. */
const discountWorkflow = {
  WorkflowName: 'Discount',
  Rules: [
    {
      RuleName: 'GiveDiscount10',
      SuccessEvent: '10',
      ErrorMessage: 'One or more adjust rules failed.',
      ErrorType: 'Error',
      RuleExpressionType: 'LambdaExpression',
      Expression:
        'input1.country == "india" AND input1.loyaltyFactor <= 2 AND input1.totalPurchasesToDate >= 5000',
    },
    {
      RuleName: 'GiveDiscount20',
      SuccessEvent: '20',
      ErrorMessage: 'One or more adjust rules failed.',
      ErrorType: 'Error',
      RuleExpressionType: 'LambdaExpression',
      Expression:
        'input1.country == "india" AND input1.loyaltyFactor >= 3 AND input1.totalPurchasesToDate >= 10000',
    },
    {
      RuleName: 'GiveDiscount25',
      SuccessEvent: '25',
      ErrorMessage: 'One or more adjust rules failed.',
      ErrorType: 'Error',
      RuleExpressionType: 'LambdaExpression',
      Expression:
        'input1.country != "india" AND input1.loyaltyFactor >= 2 AND input1.totalOrders >= 2 AND input1.totalPurchasesToDate >= 10000',
    },
    {
      RuleName: 'GiveDiscount30',
      SuccessEvent: '30',
      ErrorMessage: 'One or more adjust rules failed.',
      ErrorType: 'Error',
      RuleExpressionType: 'LambdaExpression',
      Expression:
        'input1.loyaltyFactor > 3 AND input1.totalPurchasesToDate >= 50000 AND input1.totalPurchasesToDate <= 100000',
    },
    {
      RuleName: 'GiveDiscount35',
      SuccessEvent: '35',
      ErrorMessage: 'One or more adjust rules failed.',
      ErrorType: 'Error',
      RuleExpressionType: 'LambdaExpression',
      Expression: 'input1.loyaltyFactor > 3 AND input1.totalPurchasesToDate >= 100000',
    },
  ],
};

const outputsOf = (r: RuleSetEvaluation) => r.outputs as unknown as LegacyWorkflowOutputs;

async function compileError(doc: unknown): Promise<RuleDocumentCompileError> {
  try {
    await compileLegacyWorkflow(doc);
  } catch (e) {
    expect(e).toBeInstanceOf(RuleDocumentCompileError);
    return e as RuleDocumentCompileError;
  }
  throw new Error('expected a compile error');
}

describe('compileLegacyWorkflow: the Discount sample', () => {
  let set: CompiledRuleSet;
  beforeAll(async () => {
    set = await compileLegacyWorkflow(discountWorkflow);
  });

  it('is the legacy shape listing every rule', () => {
    expect(set.shape).toBe('legacy');
    expect(set.ruleNames).toEqual([
      'GiveDiscount10',
      'GiveDiscount20',
      'GiveDiscount25',
      'GiveDiscount30',
      'GiveDiscount35',
    ]);
  });

  it.each([
    [
      { country: 'india', loyaltyFactor: 1, totalPurchasesToDate: 5000, totalOrders: 1 },
      ['GiveDiscount10'],
      '10',
    ],
    [
      { country: 'india', loyaltyFactor: 3, totalPurchasesToDate: 10000, totalOrders: 1 },
      ['GiveDiscount20'],
      '20',
    ],
    [
      { country: 'uk', loyaltyFactor: 2, totalPurchasesToDate: 10000, totalOrders: 2 },
      ['GiveDiscount25'],
      '25',
    ],
    [
      { country: 'india', loyaltyFactor: 4, totalPurchasesToDate: 100000, totalOrders: 9 },
      ['GiveDiscount20', 'GiveDiscount30', 'GiveDiscount35'],
      '20',
    ],
    [{ country: 'uk', loyaltyFactor: 1, totalPurchasesToDate: 10, totalOrders: 1 }, [], null],
  ])('%j → %j', async (input, matched, event) => {
    const r = await set.evaluate(input);
    expect(r.rulesMatched).toEqual(matched);
    expect(outputsOf(r).successEvent).toBe(event);
    expect(outputsOf(r).successEvents).toEqual(matched.map((m) => m.replace('GiveDiscount', '')));
    expect(r.errors).toEqual([]);
    expect(r.rulesExecuted).toBe(5);
  });

  it('gives a RuleResultTree-like result per rule', async () => {
    const r = await set.evaluate({
      country: 'india',
      loyaltyFactor: 1,
      totalPurchasesToDate: 5000,
      totalOrders: 1,
    });
    expect(outputsOf(r).results.GiveDiscount10).toEqual({
      isSuccess: true,
      successEvent: '10',
      errorMessage: null,
      exceptionMessage: null,
    });
    expect(outputsOf(r).results.GiveDiscount20).toEqual({
      isSuccess: false,
      successEvent: '20',
      errorMessage: 'One or more adjust rules failed.',
      exceptionMessage: null,
    });
    expect(Object.keys(outputsOf(r).results)).toEqual(set.ruleNames);
    expect(r.traces[1]).toMatchObject({
      ruleName: 'GiveDiscount20',
      matched: false,
      failReason: 'One or more adjust rules failed.',
    });
    expect('actionOutputs' in r.outputs).toBe(false);
  });

  it('takes the input from an input1 key when the facts carry several inputs', async () => {
    const r = await set.evaluate({
      input1: { country: 'india', loyaltyFactor: 3, totalPurchasesToDate: 20000 },
      input2: {},
    });
    expect(r.rulesMatched).toEqual(['GiveDiscount20']);
  });

  it('records missing inputs as exceptions of the rules that read them', async () => {
    const r = await set.evaluate({ country: 'india', loyaltyFactor: 1 });
    // totalPurchasesToDate missing: null >= 5000 is false (no exception), as in C# with a nullable
    expect(r.rulesMatched).toEqual([]);
    expect(r.errors).toEqual([]);
  });

  it('skips traces with trace: false but keeps results', async () => {
    const r = await set.evaluate(
      { country: 'india', loyaltyFactor: 1, totalPurchasesToDate: 5000 },
      { trace: false },
    );
    expect(r.traces).toEqual([]);
    expect(r.rulesMatched).toEqual(['GiveDiscount10']);
  });
});

describe('compileLegacyWorkflow: nested rules', () => {
  const doc = {
    WorkflowName: 'Nested',
    Rules: [
      {
        RuleName: 'AllOf',
        Operator: 'AndAlso',
        SuccessEvent: 'all',
        Rules: [
          { RuleName: 'Adult', Expression: 'input1.age >= 18' },
          { RuleName: 'Resident', Expression: 'input1.country == "IN"' },
        ],
      },
      {
        RuleName: 'AnyOf',
        Operator: 'OrElse',
        Rules: [
          { RuleName: 'Vip', Expression: 'input1.vip == true' },
          { RuleName: 'Big', Expression: 'input1.spend > 1000' },
        ],
      },
      {
        RuleName: 'Deep',
        Operator: 'And',
        Rules: [
          {
            RuleName: 'Inner',
            Operator: 'Or',
            Rules: [
              { RuleName: 'X', Expression: 'input1.x == 1' },
              { RuleName: 'Y', Expression: 'input1.y == 1' },
            ],
          },
          { RuleName: 'Off', Expression: 'false', Enabled: false },
        ],
      },
    ],
  };

  it('combines children with And/AndAlso and Or/OrElse, evaluating every child', async () => {
    const set = await compileLegacyWorkflow(doc);
    expect(set.ruleNames).toEqual([
      'AllOf',
      'AllOf/Adult',
      'AllOf/Resident',
      'AnyOf',
      'AnyOf/Vip',
      'AnyOf/Big',
      'Deep',
      'Deep/Inner',
      'Deep/Inner/X',
      'Deep/Inner/Y',
      'Deep/Off',
    ]);
    const r = await set.evaluate({ age: 20, country: 'IN', vip: false, spend: 5, x: 0, y: 1 });
    expect(r.rulesMatched).toEqual(['AllOf', 'Deep']);
    expect(outputsOf(r).successEvents).toEqual(['all', 'Deep']); // RuleName when no SuccessEvent
    const results = outputsOf(r).results;
    expect(Object.keys(results)).toEqual([
      'AllOf',
      'AllOf/Adult',
      'AllOf/Resident',
      'AnyOf',
      'AnyOf/Vip',
      'AnyOf/Big',
      'Deep',
      'Deep/Inner',
      'Deep/Inner/X',
      'Deep/Inner/Y',
    ]); // disabled rules have no result
    expect(results['AnyOf/Vip'].isSuccess).toBe(false);
    expect(results['AnyOf/Big'].isSuccess).toBe(false); // evaluated although Vip already failed
    expect(r.traces.find((t) => t.ruleName === 'Deep/Off')).toMatchObject({
      skipped: true,
      failReason: 'disabled',
    });
    expect(r.traces.find((t) => t.ruleName === 'AnyOf')?.failReason).toBe(
      'nested rules failed (one must succeed)',
    );
    expect(r.rulesExecuted).toBe(10);
    const second = await set.evaluate({ age: 10, country: 'IN', vip: true, spend: 5, x: 1, y: 0 });
    expect(second.rulesMatched).toEqual(['AnyOf', 'Deep']);
    expect(second.traces.find((t) => t.ruleName === 'AllOf')?.failReason).toBe(
      'nested rules failed (all must succeed)',
    );
  });

  it('evaluates every child even after the outcome is known (NestedRuleExecutionMode.All)', async () => {
    const set = await compileLegacyWorkflow({
      Rules: [
        {
          RuleName: 'P',
          Operator: 'AndAlso',
          Rules: [
            { RuleName: 'A', Expression: 'false' },
            { RuleName: 'B', Expression: 'input1.missing.x == 1' },
          ],
        },
      ],
    });
    const r = await set.evaluate({});
    expect(r.errors).toEqual([
      {
        ruleName: 'P/B',
        code: 'EXPRESSION_FAILED',
        message: "null reference: cannot read 'x' of null at column 16",
      },
    ]);
    expect(outputsOf(r).results['P/B'].exceptionMessage).toMatch(/null reference/);
  });

  it('fails a parent whose children are all disabled', async () => {
    const set = await compileLegacyWorkflow({
      Rules: [
        { RuleName: 'P', Operator: 'Or', Rules: [{ RuleName: 'A', Expression: 'true', Enabled: false }] },
      ],
    });
    expect((await set.evaluate({})).rulesMatched).toEqual([]);
  });
});

describe('compileLegacyWorkflow: enabled flags and runtime errors', () => {
  it('skips disabled top-level rules entirely', async () => {
    const set = await compileLegacyWorkflow({
      Rules: [
        { RuleName: 'On', Expression: 'true' },
        { RuleName: 'Off', Expression: 'true', Enabled: false },
      ],
    });
    const r = await set.evaluate({});
    expect(r.rulesMatched).toEqual(['On']);
    expect(Object.keys(outputsOf(r).results)).toEqual(['On']);
    expect(r.rulesExecuted).toBe(1);
  });

  it('fails a rule whose expression throws or is not a bool, and goes on', async () => {
    const set = await compileLegacyWorkflow({
      Rules: [
        { RuleName: 'Throws', Expression: 'input1.amount / input1.zero > 1', ErrorMessage: 'too big' },
        { RuleName: 'NotBool', Expression: 'input1.amount' },
        { RuleName: 'Unknown', Expression: 'amout > 1' },
        { RuleName: 'Ok', Expression: 'input1.amount > 1' },
      ],
    });
    const r = await set.evaluate({ amount: 5, zero: 0 });
    expect(r.rulesMatched).toEqual(['Ok']);
    expect(r.errors).toEqual([
      { ruleName: 'Throws', code: 'EXPRESSION_FAILED', message: 'attempted to divide by zero at column 15' },
      {
        ruleName: 'NotBool',
        code: 'EXPRESSION_FAILED',
        message: 'expression must evaluate to a bool, got number',
      },
      { ruleName: 'Unknown', code: 'EXPRESSION_FAILED', message: "unknown identifier 'amout' at column 1" },
    ]);
    expect(outputsOf(r).results.Throws).toEqual({
      isSuccess: false,
      successEvent: null,
      errorMessage: 'too big',
      exceptionMessage: 'attempted to divide by zero at column 15',
    });
    expect(r.traces[0].failReason).toBe('attempted to divide by zero at column 15');
  });

  it('fills $(expression) placeholders of ErrorMessage', async () => {
    const set = await compileLegacyWorkflow({
      Rules: [
        {
          RuleName: 'R',
          Expression: 'input1.loyaltyFactor > 3',
          ErrorMessage:
            'loyalty $(input1.loyaltyFactor) of $(input1.name.ToUpper()) too low; $(nope.x) $(not an expr',
        },
      ],
    });
    const r = await set.evaluate({ loyaltyFactor: 2, name: 'ada' });
    expect(outputsOf(r).results.R.errorMessage).toBe('loyalty 2 of ADA too low; null $(not an expr');
  });

  it('stops at a passed deadline', async () => {
    const set = await compileLegacyWorkflow(discountWorkflow);
    const r = await set.evaluate({}, { deadline: Date.now() - 1 });
    expect(r.errors.map((e) => e.code)).toEqual(['DEADLINE_EXCEEDED']);
    expect(r.rulesExecuted).toBe(0);
    expect(outputsOf(r)).toEqual({ successEvent: null, successEvents: [], results: {} });
  });
});

describe('compileLegacyWorkflow: GlobalParams and LocalParams', () => {
  it('evaluates GlobalParams first, in order, each seeing the earlier ones', async () => {
    const set = await compileLegacyWorkflow({
      WorkflowName: 'Params',
      GlobalParams: [
        { Name: 'country', Expression: 'input1.country.ToLower()' },
        { Name: 'isIndia', Expression: 'country == "india"' },
      ],
      Rules: [
        { RuleName: 'India', Expression: 'isIndia' },
        { RuleName: 'NotIndia', Expression: '!isIndia && country != null' },
      ],
    });
    const r = await set.evaluate({ country: 'INDIA' });
    expect(r.rulesMatched).toEqual(['India']);
    // params win over facts of the same name
    expect((await set.evaluate({ country: 'France' })).rulesMatched).toEqual(['NotIndia']);
  });

  it('fails only the rules that read a failed GlobalParam, and records the param error', async () => {
    const set = await compileLegacyWorkflow({
      GlobalParams: [{ Name: 'ratio', Expression: 'input1.a / input1.b' }],
      Rules: [
        { RuleName: 'UsesRatio', Expression: 'ratio > 1' },
        { RuleName: 'Independent', Expression: 'input1.a > 1' },
      ],
    });
    const r = await set.evaluate({ a: 5, b: 0 });
    expect(r.rulesMatched).toEqual(['Independent']);
    expect(r.errors).toEqual([
      {
        ruleName: 'GlobalParams.ratio',
        code: 'EXPRESSION_FAILED',
        message: 'attempted to divide by zero at column 10',
      },
      {
        ruleName: 'UsesRatio',
        code: 'EXPRESSION_FAILED',
        message: "parameter 'ratio' failed: attempted to divide by zero at column 10 at column 1",
      },
    ]);
    expect((await set.evaluate({ a: 5, b: 2 })).rulesMatched).toEqual(['UsesRatio', 'Independent']);
  });

  it('scopes LocalParams to their rule and its nested rules', async () => {
    const set = await compileLegacyWorkflow({
      GlobalParams: [{ Name: 'base', Expression: '10' }],
      Rules: [
        {
          RuleName: 'Parent',
          Operator: 'And',
          LocalParams: [{ Name: 'limit', Expression: 'base * 2' }],
          Rules: [
            {
              RuleName: 'Child',
              LocalParams: [{ Name: 'twice', Expression: 'limit * 2' }],
              Expression: 'input1.v < twice',
            },
            { RuleName: 'Child2', Expression: 'input1.v < limit' },
          ],
        },
        { RuleName: 'Outside', Expression: 'limit > 0' },
      ],
    });
    const r = await set.evaluate({ v: 15 });
    expect(r.rulesMatched).toEqual(['Parent']);
    // `limit` is not visible outside Parent: an unknown identifier there
    expect(r.errors).toEqual([
      { ruleName: 'Outside', code: 'EXPRESSION_FAILED', message: "unknown identifier 'limit' at column 1" },
    ]);
  });

  it('records a failing LocalParam under the rule path', async () => {
    const set = await compileLegacyWorkflow({
      Rules: [{ RuleName: 'R', LocalParams: [{ Name: 'p', Expression: 'input1.x.y' }], Expression: 'true' }],
    });
    const r = await set.evaluate({});
    expect(r.errors[0]).toMatchObject({ ruleName: 'R.LocalParams.p', code: 'EXPRESSION_FAILED' });
    expect(r.rulesMatched).toEqual(['R']); // the rule does not read p
  });
});

describe('compileLegacyWorkflow: OutputExpression actions', () => {
  it('evaluates OnSuccess / OnFailure output expressions and stores them per rule', async () => {
    const set = await compileLegacyWorkflow({
      GlobalParams: [{ Name: 'rate', Expression: '0.2' }],
      Rules: [
        {
          RuleName: 'Discount',
          Expression: 'input1.total > 100',
          Actions: {
            OnSuccess: { Name: 'OutputExpression', Context: { Expression: 'input1.total * rate' } },
            OnFailure: { Name: 'OutputExpression', Context: { Expression: '0' } },
          },
        },
        {
          RuleName: 'Broken',
          Expression: 'true',
          Actions: { OnSuccess: { Name: 'OutputExpression', Context: { Expression: 'input1.x.y' } } },
        },
        { RuleName: 'Plain', Expression: 'true' },
      ],
    });
    const r = await set.evaluate({ total: 200 });
    const out = outputsOf(r);
    expect(out.actionOutputs).toEqual({ Discount: 40, Broken: null });
    expect(out.results.Discount.actionOutput).toBe(40);
    expect('actionOutput' in out.results.Plain).toBe(false);
    expect(r.errors).toEqual([
      {
        ruleName: 'Broken',
        code: 'EXPRESSION_FAILED',
        message: "action OnSuccess: null reference: cannot read 'y' of null at column 10",
      },
    ]);
    expect(r.traces[0].outputs).toEqual({ actionOutput: 40 });
    expect(outputsOf(await set.evaluate({ total: 50 })).actionOutputs?.Discount).toBe(0);
  });
});

describe('compileLegacyWorkflow: compile problems name their path', () => {
  it('names unsupported constructs with path and column', async () => {
    const e = await compileError({
      GlobalParams: [{ Name: 'g', Expression: 'typeof(x)' }],
      Rules: [
        { RuleName: 'A', Expression: 'new Foo()' },
        { RuleName: 'B', Operator: 'And', Rules: [{ RuleName: 'C', Expression: 'input1.x.Foo()' }] },
        { RuleName: 'D', Expression: 'true', LocalParams: [{ Name: 'l', Expression: 'a |' }] },
        {
          RuleName: 'E',
          Expression: 'true',
          Actions: { OnSuccess: { Name: 'OutputExpression', Context: { Expression: '(int)x' } } },
        },
      ],
    });
    expect(e.problems).toEqual([
      { path: 'GlobalParams[0].Expression', message: "unsupported construct 'typeof' at column 1" },
      { path: 'Rules[0].Expression', message: "unsupported construct 'new' at column 1" },
      { path: 'Rules[1].Rules[0].Expression', message: "unknown method 'Foo' at column 10" },
      {
        path: 'Rules[2].LocalParams[0].Expression',
        message: "unsupported construct bitwise operator '|' at column 3",
      },
      {
        path: 'Rules[3].Actions.OnSuccess.Context.Expression',
        message: "unsupported construct 'cast' at column 1",
      },
    ]);
  });

  it.each([
    [null, [{ path: '', message: 'must be a JSON object' }]],
    [{}, [{ path: 'Rules', message: 'must be a non-empty array' }]],
    [{ Rules: [] }, [{ path: 'Rules', message: 'must be a non-empty array' }]],
    [{ Rules: [1] }, [{ path: 'Rules[0]', message: 'must be an object' }]],
    [
      { Rules: [{ Expression: 'true' }] },
      [{ path: 'Rules[0].RuleName', message: 'required (non-empty string)' }],
    ],
    [
      {
        Rules: [
          { RuleName: 'A', Expression: 'true' },
          { RuleName: 'A', Expression: 'true' },
        ],
      },
      [{ path: 'Rules[1].RuleName', message: "duplicate RuleName 'A'" }],
    ],
    [
      { Rules: [{ RuleName: 'A' }] },
      [{ path: 'Rules[0].Expression', message: 'required (non-empty string)' }],
    ],
    [
      { Rules: [{ RuleName: 'A', Expression: 'true', RuleExpressionType: 'Other' }] },
      [{ path: 'Rules[0].RuleExpressionType', message: "only 'LambdaExpression' is supported" }],
    ],
    [
      { Rules: [{ RuleName: 'A', Rules: [{ RuleName: 'B', Expression: 'true' }] }] },
      [{ path: 'Rules[0].Operator', message: 'required with nested Rules (And, AndAlso, Or, OrElse)' }],
    ],
    [
      { Rules: [{ RuleName: 'A', Operator: 'Xor', Rules: [] }] },
      [
        { path: 'Rules[0].Operator', message: 'required with nested Rules (And, AndAlso, Or, OrElse)' },
        { path: 'Rules[0].Rules', message: 'must be a non-empty array' },
      ],
    ],
    [
      { GlobalParams: {}, Rules: [{ RuleName: 'A', Expression: 'true' }] },
      [{ path: 'GlobalParams', message: 'must be an array of { Name, Expression }' }],
    ],
    [
      { GlobalParams: [{ Expression: '1' }], Rules: [{ RuleName: 'A', Expression: 'true' }] },
      [{ path: 'GlobalParams[0].Name', message: 'required (non-empty string)' }],
    ],
    [
      { Rules: [{ RuleName: 'A', Expression: 'true', Actions: { OnSuccess: { Name: 'EvaluateRule' } } }] },
      [
        {
          path: 'Rules[0].Actions.OnSuccess.Name',
          message: "unsupported action 'EvaluateRule' (only 'OutputExpression')",
        },
      ],
    ],
    [
      { Rules: [{ RuleName: 'A', Expression: 'true', Actions: [] }] },
      [{ path: 'Rules[0].Actions', message: 'must be an object { OnSuccess?, OnFailure? }' }],
    ],
    [
      {
        Rules: [{ RuleName: 'A', Expression: 'true', Actions: { OnFailure: { Name: 'OutputExpression' } } }],
      },
      [{ path: 'Rules[0].Actions.OnFailure.Context.Expression', message: 'required (non-empty string)' }],
    ],
  ])('%j', async (doc, problems) => {
    expect((await compileError(doc)).problems).toEqual(problems);
  });
});
