import { checkDeployables, readHttpPort } from '@arbiter/deployables';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DECISIONS_SETTINGS } from '../src';

// docker/decisions.Dockerfile and k8s/ cannot be built or applied here: this parses them and
// checks that they agree with the app (port, health routes, configuration keys, secrets).
const repoRoot = join(__dirname, '..', '..', '..');
const port = readHttpPort(join(__dirname, '..', 'config'));
const facts = {
  app: 'decisions',
  repoRoot,
  image: 'arbiter/decisions',
  port,
  settings: DECISIONS_SETTINGS,
  requiredKeys: ['ConnectionStrings:DecisionTablesDb'],
};

describe('decisions deployables (docker/, k8s/)', () => {
  it('agree with the app: port 3001, /health + /health/live, required keys from ConfigMap and Secrets', () => {
    const report = checkDeployables(facts);
    expect(report.problems).toEqual([]);
    expect(port).toBe(3001);
    expect(report).toMatchObject({
      deployment: 'arbiter-decisions',
      services: ['arbiter-decisions'],
      hpa: 'arbiter-decisions',
    });
    expect(report.requiredKeys).toEqual(expect.arrayContaining(facts.requiredKeys));
    expect(report.env.find((v) => v.key === 'ConnectionStrings:DecisionTablesDb')).toMatchObject({
      source: 'secret',
      from: 'arbiter-decisions-secrets',
    });
  });

  it('catches a wrong EXPOSE and a misspelt configuration key', () => {
    const copy = mkdtempSync(join(tmpdir(), 'deployables-'));
    try {
      const dockerfile = join(copy, 'decisions.Dockerfile');
      copyFileSync(join(repoRoot, 'docker', 'decisions.Dockerfile'), dockerfile);
      const text = readFileSync(dockerfile, 'utf8');
      expect(text).toContain('EXPOSE 3001');
      writeFileSync(dockerfile, text.replace('EXPOSE 3001', 'EXPOSE 3000'));
      const { problems } = checkDeployables({
        ...facts,
        dockerfile,
        requiredKeys: [...facts.requiredKeys, 'ConnectionStrings:DecisionTableDb'],
      });
      expect(problems).toEqual(
        expect.arrayContaining([
          expect.stringMatching(/EXPOSE 3000 does not include the app's port 3001/),
          expect.stringMatching(
            /required key ConnectionStrings:DecisionTableDb is not a configuration key of decisions/,
          ),
        ]),
      );
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  });
});
