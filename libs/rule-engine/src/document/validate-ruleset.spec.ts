import { rulesOf } from './rules-of';
import { detectShape } from './shape';
import { validateRuleSet, type KnownRuleCodes } from './validate-ruleset';

const codes = (...known: string[]): KnownRuleCodes => ({ has: (code) => known.includes(code) });
const validate = (doc: unknown, workflowName = 'wf', registry = codes('AGE_CHECK')) =>
  validateRuleSet(doc, workflowName, registry);
const paths = (doc: unknown, workflowName?: string) =>
  validate(doc, workflowName).errors.map((e) => `${e.path}: ${e.message}`);

const table = {
  name: 'risk',
  hitPolicy: 'First',
  inputColumns: [{ name: 'age', type: 'number' }],
  outputColumns: [{ name: 'risk', type: 'string' }],
  rows: [{ id: 'r1', inputConditions: { age: '< 25' }, outputs: { risk: 'high' } }],
};

describe('validateRuleSet', () => {
  describe('any shape', () => {
    it('refuses what is not an object', () => {
      for (const doc of [null, 'x', 1, []])
        expect(validate(doc)).toEqual({
          valid: false,
          shape: null,
          errors: [{ path: '', message: 'must be a JSON object' }],
          warnings: [],
        });
    });

    it('names an unknown explicit type and the expected ones', () => {
      expect(validate({ type: 'yaml' }).errors).toEqual([
        {
          path: 'type',
          message: "unknown rule set type 'yaml' (expected one of rules, legacy, code-based, flow-graph)",
        },
      ]);
    });

    it('says what a rule set looks like when the shape cannot be told', () => {
      expect(validate({ foo: 1 }).errors).toEqual([
        {
          path: '',
          message:
            'not a rule set: expected rules (rules form or code-based), Rules (legacy rules-engine JSON) or nodes (flow graph)',
        },
      ]);
    });

    it('gives the detected shape with the outcome', () => {
      expect(validate({ rules: [{ id: 'a', name: 'A', condition: 'true' }] })).toEqual({
        valid: true,
        shape: 'rules',
        errors: [],
        warnings: [],
      });
    });
  });

  describe('rules form', () => {
    it('accepts FEEL conditions, "=" outputs and embedded tables', () => {
      expect(
        paths({
          rules: [{ id: 'a', name: 'A', condition: 'age >= 18', output: { adult: true, next: '=age + 1' } }],
          decisionTables: [table],
        }),
      ).toEqual([]);
    });

    it('reports every rule problem with its path', () => {
      expect(
        paths({
          rules: [
            { id: 'a', name: 'A', condition: 'x >' },
            { id: 'a', condition: 'true', output: 3 },
            'nope',
            { name: 'C', condition: '', output: { v: '=1 +' } },
          ],
        }),
      ).toEqual([
        expect.stringMatching(/^rules\[0\]\.condition: FEEL syntax error at line 1, column \d+/),
        "rules[1].id: duplicate rule id 'a' (also rules[0])",
        'rules[1].name: required (non-empty string)',
        'rules[1].output: must be an object of output facts',
        'rules[2]: must be an object',
        'rules[3].id: required (non-empty string)',
        'rules[3].condition: required (non-empty string)',
        expect.stringMatching(/^rules\[3\]\.output\.v: FEEL syntax error/),
      ]);
    });

    it('needs a non-empty rules array', () => {
      expect(paths({ type: 'rules', rules: {} })).toEqual(['rules: must be an array']);
      expect(paths({ rules: [] })).toEqual(['rules: must contain at least one rule']);
    });

    it('checks C#-style lambdas when the document asks for them', () => {
      const errors = paths({
        expressionLanguage: 'lambda',
        rules: [
          { id: 'a', name: 'A', condition: 'input1.age > 18 && input1.country == "NL"' },
          { id: 'b', name: 'B', condition: 'new Foo()', output: { v: '=input1.age +' } },
        ],
      });
      expect(errors).toHaveLength(2);
      expect(errors[0]).toMatch(/^rules\[1\]\.condition: .*'new'/);
      expect(errors[1]).toMatch(/^rules\[1\]\.output\.v: /);
    });

    it('knows only feel and lambda', () => {
      expect(
        paths({ expressionLanguage: 'python', rules: [{ id: 'a', name: 'A', condition: 'true' }] }),
      ).toEqual(["expressionLanguage: must be 'feel' or 'lambda'"]);
    });

    it('validates embedded decision tables: array, objects, unique names, cells', () => {
      const rules = [{ id: 'a', name: 'A', condition: 'true' }];
      expect(paths({ rules, decisionTables: {} })).toEqual([
        'decisionTables: must be an array of decision tables',
      ]);
      expect(paths({ rules, decisionTables: [1] })).toEqual(['decisionTables[0]: must be an object']);
      expect(paths({ rules, decisionTables: [table, table] })).toEqual([
        "decisionTables[1].name: duplicate table name 'risk'",
      ]);
      const bad = { ...table, rows: [{ id: 'r1', inputConditions: { age: '< <' }, outputs: { risk: 'x' } }] };
      expect(paths({ rules, decisionTables: [bad] })[0]).toMatch(/^decisionTables\[0\]\.rows\[r1\]\.age: /);
    });
  });

  describe('legacy rules-engine JSON', () => {
    const rule = (extra: Record<string, unknown> = {}) => ({
      RuleName: 'adult',
      Expression: 'input1.age >= 18',
      ...extra,
    });

    it('accepts a workflow with nested rules, params and output actions', () => {
      expect(
        paths({
          WorkflowName: 'wf',
          GlobalParams: [{ Name: 'age', Expression: 'input1.age' }],
          Rules: [
            rule({
              LocalParams: [{ Name: 'x', Expression: 'age + 1' }],
              Actions: { OnSuccess: { Name: 'OutputExpression', Context: { Expression: 'age * 2' } } },
              Enabled: true,
            }),
            { RuleName: 'both', Operator: 'And', Rules: [rule({ RuleName: 'inner' })] },
          ],
        }),
      ).toEqual([]);
    });

    it('refuses a WorkflowName other than the workflow in the path, when the workflow is known', () => {
      const doc = { WorkflowName: 'other', Rules: [rule()] };
      expect(paths(doc)).toEqual(["WorkflowName: 'other' differs from the workflow 'wf' in the path"]);
      expect(validateRuleSet(doc, undefined, codes()).errors).toEqual([]);
    });

    it('reports rule problems with their paths', () => {
      expect(
        paths({
          Rules: [
            rule(),
            rule({ RuleExpressionType: 'Other', Enabled: 'yes' }),
            { RuleName: 'n', Rules: [{ RuleName: 'leaf' }] },
            { Expression: 'true' },
            7,
          ],
        }),
      ).toEqual([
        "Rules[1].RuleName: duplicate RuleName 'adult'",
        "Rules[1].RuleExpressionType: only 'LambdaExpression' is supported",
        'Rules[1].Enabled: must be a boolean',
        'Rules[2].Operator: required with nested Rules (And, AndAlso, Or, OrElse)',
        'Rules[2].Rules[0].Expression: required (a rule without nested Rules needs an Expression)',
        'Rules[3].RuleName: required (non-empty string)',
        'Rules[4]: must be an object',
      ]);
      expect(paths({ Rules: [] })).toEqual(['Rules: must be a non-empty array']);
    });

    it('checks params and actions', () => {
      expect(
        paths({
          GlobalParams: {},
          Rules: [
            rule({
              LocalParams: [{ Expression: 'x' }, { Name: 'y' }, { Name: 'z', Expression: 'new X()' }],
              Actions: {
                OnSuccess: { Name: 'EvaluateRule' },
                OnFailure: { Name: 'OutputExpression', Context: {} },
              },
            }),
            rule({ RuleName: 'b', Actions: 'x' }),
            rule({ RuleName: 'c', Actions: { OnSuccess: 3 } }),
          ],
        }),
      ).toEqual([
        'GlobalParams: must be an array',
        'Rules[0].LocalParams[0].Name: required',
        'Rules[0].LocalParams[1].Expression: required',
        expect.stringMatching(/^Rules\[0\]\.LocalParams\[2\]\.Expression: /),
        "Rules[0].Actions.OnSuccess.Name: unsupported action 'EvaluateRule' (only 'OutputExpression')",
        'Rules[0].Actions.OnFailure.Context.Expression: required (non-empty string)',
        'Rules[1].Actions: must be an object { OnSuccess?, OnFailure? }',
        'Rules[2].Actions.OnSuccess: must be an object { Name, Context }',
      ]);
    });
  });

  describe('code-based', () => {
    it('accepts known codes, with ids for repeated codes', () => {
      expect(
        paths({
          rules: [
            { code: 'AGE_CHECK', parameters: { min: 18 } },
            { id: 'again', code: 'AGE_CHECK', enabled: false },
          ],
        }),
      ).toEqual([]);
    });

    it('reports unknown codes, duplicates and bad fields', () => {
      expect(
        paths({
          type: 'code-based',
          rules: [
            { code: 'NOPE' },
            { code: 'AGE_CHECK' },
            { code: 'AGE_CHECK', parameters: [], enabled: 'no' },
            { code: '' },
            null,
          ],
        }),
      ).toEqual([
        "rules[0].code: unknown rule code 'NOPE'",
        "rules[2].id: duplicate rule id 'AGE_CHECK' (give each use of a code its own id)",
        'rules[2].parameters: must be an object',
        'rules[2].enabled: must be a boolean',
        'rules[3].code: required (non-empty string)',
        'rules[4]: must be an object',
      ]);
      expect(paths({ type: 'code-based', rules: [] })).toEqual([
        'rules: must be a non-empty array of { code, parameters? }',
      ]);
    });
  });

  describe('flow graph', () => {
    it('is validated by validateFlowGraph, with the workflow for the self-call check', () => {
      expect(paths({ nodes: [{ id: 's', kind: 'sub-flow', config: { workflowName: 'wf' } }] }, 'wf')).toEqual(
        ["nodes[0].config.workflowName: a flow cannot call itself ('wf')"],
      );
    });
  });
});

describe('detectShape', () => {
  it('prefers an explicit type, then the fields', () => {
    expect(detectShape({ type: 'flow-graph', rules: [] })).toBe('flow-graph');
    expect(detectShape({ WorkflowName: 'w' })).toBe('legacy');
    expect(detectShape({ rules: [{ code: 'X' }, { code: 'Y', condition: 'z' }] })).toBe('rules');
    expect(detectShape({ rules: [] })).toBe('rules');
    expect(detectShape([])).toBeNull();
    expect(detectShape({})).toBeNull();
  });
});

describe('rulesOf', () => {
  it('lists the rules of each shape as { id, name, …fields }, embedded tables included', () => {
    expect(
      rulesOf({ rules: [{ id: 'a', name: 'A', condition: 'x' }], decisionTables: [table] }, 'rules'),
    ).toEqual([
      { id: 'a', name: 'A', condition: 'x' },
      { id: 'decisionTable:risk', name: 'risk', table },
    ]);
    expect(
      rulesOf(
        {
          Rules: [{ RuleName: 'p', Operator: 'And', Rules: [{ RuleName: 'c', Expression: 'true' }] }],
        },
        'legacy',
      ),
    ).toEqual([
      { id: 'p', name: 'p', Operator: 'And' },
      { id: 'p/c', name: 'c', Expression: 'true' },
    ]);
    expect(rulesOf({ rules: [{ code: 'A' }, { id: 'b', name: 'B', code: 'A' }] }, 'code-based')).toEqual([
      { id: 'A', name: 'A', code: 'A' },
      { id: 'b', name: 'B', code: 'A' },
    ]);
    expect(
      rulesOf({ nodes: [{ id: 'n', kind: 'condition', config: { expression: 'true' } }] }, 'flow-graph'),
    ).toEqual([{ id: 'n', name: 'n', kind: 'condition', config: { expression: 'true' } }]);
  });
});
