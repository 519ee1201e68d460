import { createBuiltInRuleLibrary } from './builtin';
import { generateManifest, parseManifest, RuleManifestError } from './manifest';

describe('generateManifest', () => {
  it('lists every rule with its metadata, sorted by code', () => {
    const manifest = generateManifest(createBuiltInRuleLibrary(), 'arbiter.builtin', {
      generatedAt: new Date('2026-01-02T03:04:05Z'),
    });
    expect(manifest).toMatchObject({
      schemaVersion: 1,
      sourceKey: 'arbiter.builtin',
      generatedAt: '2026-01-02T03:04:05.000Z',
    });
    expect(manifest.rules.map((r) => r.code)).toEqual([
      'AGE_CHECK',
      'COUNTRY_ALLOWED',
      'CREDIT_MIN',
      'DEBUG_ECHO',
      'DTI_MAX',
      'KYC_OK',
    ]);
    const credit = manifest.rules.find((r) => r.code === 'CREDIT_MIN')!;
    expect(Object.keys(credit).sort()).toEqual(
      [
        'category',
        'code',
        'description',
        'displayName',
        'hidden',
        'inputSchema',
        'outputSchema',
        'tags',
      ].sort(),
    );
    expect(credit.inputSchema).toEqual({
      contractName: 'CreditMinInput',
      fields: [{ path: 'applicant.creditScore', dataType: 'number' }],
    });
    expect(manifest.rules.find((r) => r.code === 'DEBUG_ECHO')!.hidden).toBe(true);
    // Round trip: what the generator writes, the catalog reads back unchanged.
    expect(parseManifest(JSON.parse(JSON.stringify(manifest)))).toEqual(manifest);
  });

  it('needs a source key', () => {
    expect(() => generateManifest(createBuiltInRuleLibrary(), ' ')).toThrow(RuleManifestError);
  });
});

describe('parseManifest', () => {
  const rule = {
    code: 'R1',
    displayName: 'R1',
    category: 'C',
    inputSchema: { contractName: 'In', fields: [] },
    outputSchema: { contractName: 'Out', fields: [] },
  };

  it('fills defaults (tags [], hidden false)', () => {
    const parsed = parseManifest({
      schemaVersion: 1,
      sourceKey: 'x',
      generatedAt: '2026-01-01T00:00:00Z',
      rules: [rule],
    });
    expect(parsed.rules[0]).toMatchObject({ tags: [], hidden: false });
  });

  it('lists every problem with its path', () => {
    try {
      parseManifest(
        {
          schemaVersion: 2,
          rules: [
            rule,
            { ...rule, inputSchema: { contractName: 'In', fields: [{ path: 'a', dataType: 'int' }] } },
          ],
        },
        'm.json',
      );
      throw new Error('expected a RuleManifestError');
    } catch (error) {
      expect(error).toBeInstanceOf(RuleManifestError);
      expect((error as Error).message).toMatch(/^m\.json: invalid rule manifest/);
      expect((error as RuleManifestError).problems.map((p) => p.path)).toEqual([
        'schemaVersion',
        'sourceKey',
        'rules[1].inputSchema.fields[0].dataType',
        'rules[1].code',
      ]);
    }
    expect(() => parseManifest([])).toThrow('must be a JSON object');
    expect(() => parseManifest({ schemaVersion: 1, sourceKey: 'x' })).toThrow('rules: must be an array');
  });
});
