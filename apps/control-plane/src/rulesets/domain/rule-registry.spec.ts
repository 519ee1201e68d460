import { createBuiltInRuleLibrary } from '@arbiter/rule-engine';
import { InMemoryRuleRegistry } from './rule-registry';

describe('InMemoryRuleRegistry', () => {
  it('resolves implementations of a registered library and keeps them when a code is registered again', async () => {
    const registry = new InMemoryRuleRegistry().registerLibrary(createBuiltInRuleLibrary());
    registry.register('CREDIT_MIN', { code: 'KYC_OK', displayName: 'KYC (renamed)' }, 'MANIFEST_ONLY');
    expect(registry.has('MANIFEST_ONLY')).toBe(true);
    expect(registry.get('MANIFEST_ONLY')).toBeUndefined();
    expect(await registry.get('CREDIT_MIN')!.evaluate({ applicant: { creditScore: 700 } }, {})).toMatchObject(
      {
        matched: true,
      },
    );
    expect(registry.list().find((r) => r.code === 'KYC_OK')).toMatchObject({
      displayName: 'KYC (renamed)',
      category: 'Compliance',
    });
    expect(registry.list().map((r) => r.code)).toEqual([...registry.list().map((r) => r.code)].sort());
  });
});
