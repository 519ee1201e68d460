/**
 * Examples of the rule set routes' OpenAPI document: one rule set per shape (each valid for the engine's
 * `validateRuleSet`, see `examples.spec.ts`) and the answers of one workflow, `loan`, walked through its
 * lifecycle, so the request and response examples tell one consistent story.
 */

/** The spec's rules form: `{ rules: [{ id, name, condition, output }] }` (FEEL conditions by default). */
export const RULES_FORM_EXAMPLE = {
  rules: [
    {
      id: 'adult',
      name: 'Adult applicant',
      condition: 'applicant.age >= 18',
      output: { eligible: true },
    },
    {
      id: 'high-income',
      name: 'High income',
      condition: 'applicant.income > 50000',
      output: { tier: 'gold' },
    },
  ],
};

/** Legacy rules-engine JSON (`WorkflowName`, `Rules` with C#-style lambda `Expression`s). */
export const LEGACY_EXAMPLE = {
  WorkflowName: 'loan',
  Rules: [{ RuleName: 'Adult', Expression: 'input1.age >= 18', SuccessEvent: 'eligible' }],
};

/** Code-based: rule codes registered in the control plane's rule registry, with their parameters. */
export const CODE_BASED_EXAMPLE = {
  type: 'code-based',
  rules: [{ code: 'CREDIT_MIN', parameters: { min: 600 } }, { code: 'KYC_OK' }],
};

/** Flow graph: nodes and edges (`GET /api/v1/rule-flow/contract` publishes its JSON Schema). */
export const FLOW_GRAPH_EXAMPLE = {
  type: 'flow-graph',
  schemaVersion: 1,
  start: 'adult',
  nodes: [
    {
      id: 'adult',
      kind: 'condition',
      config: { expression: 'applicant.age >= 18' },
      edges: [
        { kind: 'on-true', target: 'accept' },
        { kind: 'on-false', target: 'refuse' },
      ],
    },
    {
      id: 'accept',
      kind: 'feel-expression',
      config: { expression: '"eligible"', outputVariable: 'decision' },
    },
    {
      id: 'refuse',
      kind: 'feel-expression',
      config: { expression: '"too young"', outputVariable: 'decision' },
    },
  ],
};

/** Every shape, as `examples` of a body whose rule set is an open document. */
export const RULE_SET_EXAMPLES = {
  rulesForm: { summary: 'Rules form (FEEL conditions)', value: RULES_FORM_EXAMPLE },
  legacy: { summary: 'Legacy rules-engine JSON', value: LEGACY_EXAMPLE },
  codeBased: { summary: 'Code-based (registered rule codes)', value: CODE_BASED_EXAMPLE },
  flowGraph: { summary: 'Flow graph', value: FLOW_GRAPH_EXAMPLE },
};

/** What the rule set document is, for the descriptions of the fields and bodies that carry one. */
export const RULE_SET_DOCUMENT_DESCRIPTION =
  'The rule set document, in one of four shapes the engine recognises (an explicit `type` wins): the ' +
  'rules form `{ rules: [{ id, name, condition, output }], decisionTables?, expressionLanguage? }`, legacy ' +
  'rules-engine JSON `{ WorkflowName, Rules }`, code-based `{ type: "code-based", rules: [{ code, ' +
  'parameters }] }` or a flow graph `{ type: "flow-graph", nodes }` (JSON Schema at ' +
  '`GET /api/v1/rule-flow/contract`). Validated by the engine, not by this schema: a document it refuses ' +
  'is a 400 `INVALID_RULESET` whose `details` name each problem by its JSON path.';

export const WORKFLOW_EXAMPLE = 'loan';
export const ACTOR_EXAMPLE = 'alice';
export const CHECKER_EXAMPLE = 'bob';
export const CREATED_AT_EXAMPLE = '2026-03-02T09:15:00.000Z';
export const SUBMITTED_AT_EXAMPLE = '2026-03-02T09:20:00.000Z';
export const APPROVED_AT_EXAMPLE = '2026-03-02T10:05:00.000Z';
export const ACTIVATED_AT_EXAMPLE = '2026-03-02T10:30:00.000Z';
