import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { main } from './generate-manifest';

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
    writeFileSync(file, `const lib = require('@arbiter/rule-engine');\n${body}\n`);
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
