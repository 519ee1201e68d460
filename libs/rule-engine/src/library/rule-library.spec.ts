import { defineRule, Rule, RuleDefinitionError, RuleSpec } from './define-rule';
import { isRuleLibrary, RuleLibrary } from './rule-library';

const spec = (over: Partial<RuleSpec> = {}): RuleSpec => ({
  code: 'MIN_AMOUNT',
  displayName: 'Minimum amount',
  category: 'Limits',
  tags: ['amount'],
  inputSchema: { contractName: 'AmountIn', fields: [{ path: 'order.amount', dataType: 'number' }] },
  outputSchema: { contractName: 'AmountOut', fields: [{ path: 'amountOk', dataType: 'boolean' }] },
  evaluate: (facts: any, parameters) => ({ amountOk: facts.order.amount >= Number(parameters.min ?? 0) }),
  ...over,
});

const problemsOf = (fn: () => unknown) => {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(RuleDefinitionError);
    return (error as RuleDefinitionError).problems.map((p) => p.path);
  }
  throw new Error('expected a RuleDefinitionError');
};

describe('defineRule', () => {
  it('returns a frozen definition with defaults (tags [], hidden false)', () => {
    const rule = defineRule(spec({ tags: undefined }));
    expect(rule).toMatchObject({ code: 'MIN_AMOUNT', tags: [], hidden: false, category: 'Limits' });
    expect(Object.isFrozen(rule)).toBe(true);
    expect(rule.evaluate({ order: { amount: 5 } }, { min: 3 })).toEqual({ amountOk: true });
  });

  it('keeps only contractName and fields of the schemas', () => {
    const rule = defineRule(spec({ inputSchema: { contractName: 'In', fields: [], extra: 1 } as never }));
    expect(rule.inputSchema).toEqual({ contractName: 'In', fields: [] });
  });

  it('names every bad field', () => {
    const paths = problemsOf(() =>
      defineRule(
        spec({
          code: 'bad code!',
          displayName: ' ',
          category: '',
          tags: [''] as never,
          inputSchema: {
            contractName: 'In',
            fields: [
              { path: 'a', dataType: 'money' as never },
              { path: 'a', dataType: 'number' },
            ],
          },
          outputSchema: { contractName: '', fields: 'x' as never },
          evaluate: 'no' as never,
        }),
      ),
    );
    expect(paths).toEqual([
      'code',
      'displayName',
      'category',
      'tags',
      'inputSchema.fields[0].dataType',
      'inputSchema.fields[1].path',
      'outputSchema.contractName',
      'outputSchema.fields',
      'evaluate',
    ]);
  });
});

describe('@Rule classes', () => {
  it('registers a decorated class by instantiating it', async () => {
    @Rule({
      code: 'VIP',
      displayName: 'VIP customer',
      category: 'Segments',
      tags: ['vip'],
      hidden: true,
      inputSchema: { contractName: 'VipIn', fields: [{ path: 'customer.spend', dataType: 'number' }] },
      outputSchema: { contractName: 'VipOut', fields: [] },
    })
    class VipRule {
      private readonly threshold = 1000;
      evaluate(facts: any) {
        return facts.customer.spend > this.threshold;
      }
    }
    const library = new RuleLibrary().register(VipRule);
    const rule = library.get('VIP')!;
    expect(rule).toMatchObject({ code: 'VIP', hidden: true, tags: ['vip'] });
    expect(await rule.evaluate({ customer: { spend: 1500 } }, {})).toBe(true);
  });

  it('refuses bad metadata at decoration time and undecorated classes at registration', () => {
    expect(problemsOf(() => Rule({ ...spec(), code: '' }))).toEqual(['code']);
    class Plain {
      evaluate() {
        return true;
      }
    }
    expect(() => new RuleLibrary().register(Plain)).toThrow("Class 'Plain' has no @Rule({...}) decorator");
  });
});

describe('RuleLibrary', () => {
  it('resolves codes, lists sorted by code and refuses duplicates', () => {
    const library = new RuleLibrary([defineRule(spec({ code: 'B' })), defineRule(spec({ code: 'A' }))]);
    expect(library.list().map((r) => r.code)).toEqual(['A', 'B']);
    expect(library.get('A')?.code).toBe('A');
    expect(library.get('Z')).toBeUndefined();
    expect(library.has('B')).toBe(true);
    expect(library.size).toBe(2);
    expect(() => library.register(defineRule(spec({ code: 'A' })))).toThrow(
      "Rule code 'A' is already registered",
    );
    expect(library.size).toBe(2);
  });

  it('is recognised by isRuleLibrary (brand, not instanceof)', () => {
    expect(isRuleLibrary(new RuleLibrary())).toBe(true);
    expect(isRuleLibrary({ get: () => undefined, list: () => [] })).toBe(false);
    expect(isRuleLibrary(null)).toBe(false);
  });
});
