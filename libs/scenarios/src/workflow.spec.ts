import { buildWorkflowModel, generateWorkflowScenarios, runWorkflowScenarios } from './workflow';
import { workflowMutationRun } from './workflow-mutation';
import { dedupBySimilarity, localEmbedding, cosine } from './similarity';

const loanRules = {
  rules: [
    { id: 'big', name: 'big', condition: 'amount >= 5000 and country = "NL"', output: { review: true } },
    {
      id: 'vip',
      name: 'vip',
      condition: 'customer.tier = "gold" or customer.years > 10',
      output: { fast: true },
    },
    { id: 'over', name: 'over', condition: 'amount > limit', output: { overLimit: true } },
  ],
};

const flow = {
  type: 'flow-graph',
  schemaVersion: 1,
  start: 'adult',
  nodes: [
    {
      id: 'adult',
      kind: 'condition',
      config: { expression: 'applicant.age >= 18' },
      edges: [
        { kind: 'on-true', target: 'income' },
        { kind: 'on-false', target: 'deny' },
        { kind: 'on-error', target: 'fix' },
      ],
    },
    {
      id: 'income',
      kind: 'condition',
      config: { expression: 'applicant.income > applicant.rent * 3' },
      edges: [
        { kind: 'on-true', target: 'approve' },
        { kind: 'on-false', target: 'deny' },
      ],
    },
    {
      id: 'approve',
      kind: 'feel-expression',
      config: { expression: '"approved"', outputVariable: 'decision' },
    },
    { id: 'deny', kind: 'feel-expression', config: { expression: '"denied"', outputVariable: 'decision' } },
    {
      id: 'fix',
      kind: 'feel-expression',
      config: { expression: '"incomplete"', outputVariable: 'decision' },
    },
  ],
};

describe('Workflow scope', () => {
  it('covers every rule of a rules-form rule set both ways, input against input included', async () => {
    const plan = await generateWorkflowScenarios(loanRules, { seedRuleCode: 'loan', seed: 7 });
    expect(plan.scope).toBe('Workflow');
    expect(plan.scenarios.length).toBeGreaterThan(10);
    const facts = plan.scenarios.map((s) => s.inputFacts);
    // boundaries of amount >= 5000
    for (const v of [4999, 5000, 5001]) expect(facts.some((f) => f.amount === v)).toBe(true);
    // amount > limit solved from limit's value: one above it and one on it
    expect(facts.some((f) => typeof f.limit === 'number' && f.amount === (f.limit as number) + 1)).toBe(true);
    expect(facts.some((f) => typeof f.limit === 'number' && f.amount === f.limit)).toBe(true);
    const model = await buildWorkflowModel(loanRules);
    const report = await runWorkflowScenarios(model, plan.scenarios);
    expect(report.failed).toBe(0);
    expect(report.coverage.rules).toMatchObject({ total: 3, bothSides: 3, percent: 100 });
    expect(report.coverage.percent).toBe(100);
    // the expectation names the rules matched and the outputs
    const big = plan.scenarios.find((s) => s.expectedBehavior.matchedRows.includes('big'))!;
    expect(big.expectedBehavior.outputs).toMatchObject({ review: true });
  });

  it('is deterministic for a seed', async () => {
    const a = await generateWorkflowScenarios(loanRules, { seedRuleCode: 'loan', seed: 3 });
    const b = await generateWorkflowScenarios(loanRules, { seedRuleCode: 'loan', seed: 3 });
    expect(a.scenarios.map((s) => s.hash)).toEqual(b.scenarios.map((s) => s.hash));
  });

  it('reads C#-style lambda conditions from their comparisons', async () => {
    const doc = {
      expressionLanguage: 'lambda',
      rules: [
        {
          id: 'r',
          name: 'r',
          condition: 'input1.amount > 100 && input1.kind == "card"',
          output: { ok: true },
        },
      ],
    };
    const plan = await generateWorkflowScenarios(doc, { seedRuleCode: 'lambda' });
    const report = await runWorkflowScenarios(await buildWorkflowModel(doc), plan.scenarios);
    expect(report.coverage.rules.bothSides).toBe(1);
    expect(plan.scenarios.some((s) => s.inputFacts.amount === 101 && s.inputFacts.kind === 'card')).toBe(
      true,
    );
  });

  it('covers a legacy rules-engine workflow (C#-style lambda expressions) both ways', async () => {
    const doc = {
      WorkflowName: 'discount',
      Rules: [
        { RuleName: 'loyal', Expression: 'input1.years >= 5 && input1.country == "NL"', SuccessEvent: '10' },
        { RuleName: 'bulk', Expression: 'input1.quantity > input1.threshold', SuccessEvent: '5' },
      ],
    };
    const plan = await generateWorkflowScenarios(doc, { seedRuleCode: 'discount' });
    const report = await runWorkflowScenarios(await buildWorkflowModel(doc), plan.scenarios);
    expect(report.failed + report.errored).toBe(0);
    expect(report.coverage.rules).toMatchObject({ total: 2, bothSides: 2 });
  });

  it('reaches every node and edge of a flow: on-true, on-false, on-error, input against input', async () => {
    const plan = await generateWorkflowScenarios(flow, { seedRuleCode: 'onboarding' });
    const model = await buildWorkflowModel(flow);
    const report = await runWorkflowScenarios(model, plan.scenarios);
    expect(report.coverage.nodes).toMatchObject({ total: 5, hit: 5, percent: 100 });
    expect(report.coverage.edges.unhit).toEqual([]);
    expect(report.coverage.percent).toBe(100);
    expect(report.failed).toBe(0);
  });

  it('notices a changed rule set: the old expectations fail with the rule named', async () => {
    const plan = await generateWorkflowScenarios(loanRules, { seedRuleCode: 'loan' });
    const changed = JSON.parse(JSON.stringify(loanRules)) as typeof loanRules;
    changed.rules[0].condition = 'amount > 5000 and country = "NL"';
    const report = await runWorkflowScenarios(await buildWorkflowModel(changed), plan.scenarios);
    expect(report.failed).toBeGreaterThan(0);
    const failure = report.results.find((r) => !r.matchesExpectation)!;
    expect(failure.analysis[0].rowId).toBe('big');
  });

  it('removes near-duplicate combinations by vector similarity, keeping boundaries', async () => {
    const hashOnly = await generateWorkflowScenarios(loanRules, { seedRuleCode: 'loan' });
    const similar = await generateWorkflowScenarios(loanRules, {
      seedRuleCode: 'loan',
      similarityThreshold: 0.95,
    });
    expect(similar.nearDuplicatesRemoved).toBeGreaterThan(0);
    expect(similar.scenarios.length).toBe(hashOnly.scenarios.length - similar.nearDuplicatesRemoved);
    expect(similar.scenarios.filter((s) => s.type === 'Boundary').length).toBe(
      hashOnly.scenarios.filter((s) => s.type === 'Boundary').length,
    );
  });
});

describe('local embedding', () => {
  it('puts near facts together and different ones apart, deterministically', () => {
    const a = localEmbedding({ amount: 5000, country: 'NL' });
    expect(cosine(a, localEmbedding({ amount: 5000, country: 'NL' }))).toBeCloseTo(1, 10);
    expect(cosine(a, localEmbedding({ amount: 5001, country: 'NL' }))).toBeGreaterThan(0.99);
    expect(cosine(a, localEmbedding({ tier: 'gold', years: 3 }))).toBeLessThan(0.5);
    expect(dedupBySimilarity([{ a: 1 }, { a: 1.0001 }, { b: 'x' }], 0.99)).toEqual([0, 2]);
    expect(() => dedupBySimilarity([], 0)).toThrow(RangeError);
  });
});

describe('workflow mutation run', () => {
  it('flips comparisons, moves numbers and drops rules; the generated scenarios kill them', async () => {
    const plan = await generateWorkflowScenarios(loanRules, { seedRuleCode: 'loan' });
    const m = await workflowMutationRun(loanRules, plan.scenarios);
    // big: >= and = flipped, 5000 moved both ways; vip: = and > flipped, 10 moved; over: > flipped; 3 rules dropped
    expect(m.mutants + m.invalid).toBe(4 + 4 + 1 + 3);
    expect(m.score).toBeGreaterThanOrEqual(90);
    expect(m.killed).toBe(m.mutants - m.survivors.length);
  });

  it('scenarios far from every boundary kill little; none kill nothing', async () => {
    const far = [{ amount: 1, country: 'BE', customer: { tier: 'silver', years: 1 }, limit: 1000000 }];
    const model = await buildWorkflowModel(loanRules);
    const scenarios = [];
    for (const inputFacts of far) {
      const e = await model.compiled.evaluate(inputFacts);
      scenarios.push({
        inputFacts,
        expectedBehavior: {
          matchedRows: e.rulesMatched,
          outputs: e.outputs,
          errorCode: null,
          description: 'far',
        },
      });
    }
    expect((await workflowMutationRun(loanRules, scenarios)).score).toBeLessThan(50);
    expect((await workflowMutationRun(loanRules, [])).score).toBe(0);
  });
});
