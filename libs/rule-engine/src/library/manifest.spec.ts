import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createBuiltInRuleLibrary } from './builtin';
import { main } from './generate-manifest';
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

describe('generate-manifest CLI', () => {
  let dir: string;
  const out: string[] = [];
  const err: string[] = [];
  const run = (...argv: string[]) =>
    main(
      argv,
      (l) => out.push(l),
      (l) => err.push(l),
    );
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'manifest-'));
    out.length = 0;
    err.length = 0;
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const writeModule = (name: string, body: string) => {
    const file = join(dir, name);
    writeFileSync(file, `const lib = require(${JSON.stringify(join(__dirname, 'index.ts'))});\n${body}\n`);
    return file;
  };

  it('writes the manifest of the module library, source key from the file name', () => {
    const module = writeModule('loans-rules.js', 'module.exports.library = lib.createBuiltInRuleLibrary();');
    const target = join(dir, 'nested', 'manifest.json');
    expect(run(module, target)).toBe(0);
    const written = JSON.parse(readFileSync(target, 'utf8'));
    expect(written).toMatchObject({ schemaVersion: 1, sourceKey: 'loans-rules' });
    expect(written.rules).toHaveLength(6);
    expect(out[0]).toContain("wrote 6 rule(s) of 'loans-rules'");
  });

  it('takes --source-key and --export (a function returning a library is called)', () => {
    const module = writeModule(
      'two.js',
      'module.exports.a = lib.createBuiltInRuleLibrary; module.exports.b = new lib.RuleLibrary();',
    );
    const target = join(dir, 'm.json');
    expect(run(module, target, '--export', 'a', '--source-key', 'acme.rules')).toBe(0);
    expect(JSON.parse(readFileSync(target, 'utf8')).sourceKey).toBe('acme.rules');
    expect(run(module, target, '--export', 'zzz')).toBe(2);
    expect(err.join('\n')).toContain("export 'zzz' is not a RuleLibrary");
  });

  it('fails with usage (exit 2) on bad arguments and 1 when the module cannot load', () => {
    expect(run('only-one.js')).toBe(2);
    expect(err[0]).toContain('usage:');
    expect(run('a.js', 'b.json', '--bogus')).toBe(2);
    expect(run(writeModule('none.js', 'module.exports.x = 1;'), join(dir, 'x.json'))).toBe(2);
    expect(err.join('\n')).toContain('exports no RuleLibrary');
    expect(run(join(dir, 'missing.js'), join(dir, 'x.json'))).toBe(1);
  });
});
