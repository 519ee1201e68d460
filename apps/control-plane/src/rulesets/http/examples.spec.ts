import { validateRuleSet } from '@arbiter/rule-engine';
import { RULE_SET_EXAMPLES } from './examples';

describe('the rule set examples of the OpenAPI document', () => {
  const registry = new Set(['CREDIT_MIN', 'KYC_OK']);

  it.each(Object.entries(RULE_SET_EXAMPLES))('%s is a valid rule set of its shape', (name, example) => {
    const outcome = validateRuleSet(example.value, 'loan', registry);
    expect(outcome.errors).toEqual([]);
    expect(outcome.valid).toBe(true);
    const expected = {
      rulesForm: 'rules',
      legacy: 'legacy',
      codeBased: 'code-based',
      flowGraph: 'flow-graph',
    };
    expect(outcome.shape).toBe(expected[name as keyof typeof expected]);
  });
});
