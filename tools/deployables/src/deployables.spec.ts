import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkDeployables, configKeyOfEnv, readHttpPort } from './deployables';

// The apps' test/deployables.spec.ts check the real docker/ and k8s/ files; these cover the helpers
// and a repository that has none of them.
describe('deployables checker', () => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'deployables-'));
    mkdirSync(join(root, 'apps', 'demo', 'config'), { recursive: true });
    writeFileSync(
      join(root, 'apps', 'demo', 'config', 'default.json'),
      JSON.stringify({ Http: { Port: 3999 } }),
    );
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('reads Http:Port from config/default.json, and refuses a config without it', () => {
    expect(readHttpPort(join(root, 'apps', 'demo', 'config'))).toBe(3999);
    writeFileSync(join(root, 'apps', 'demo', 'config', 'default.json'), '{}');
    expect(() => readHttpPort(join(root, 'apps', 'demo', 'config'))).toThrow('has no numeric Http.Port');
  });

  it('maps environment variables to configuration keys', () => {
    expect(configKeyOfEnv('ConnectionStrings__DecisionTablesDb')).toBe('ConnectionStrings:DecisionTablesDb');
    expect(configKeyOfEnv('RULEENGINE_EXECUTIONROUTER_MODE')).toBe('RuleEngineOptions:ExecutionRouter:Mode');
    expect(configKeyOfEnv('NODE_ENV')).toBe('NODE_ENV');
  });

  it('reports a missing Dockerfile and missing manifests', () => {
    const report = checkDeployables({ app: 'demo', repoRoot: root, settings: [] });
    expect(report.port).toBe(3999);
    expect(report.problems.length).toBeGreaterThan(0);
    expect(report.problems.join('\n')).toMatch(/demo\.Dockerfile/);
  });
});
