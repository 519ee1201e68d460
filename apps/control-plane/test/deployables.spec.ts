import { checkDeployables, readHttpPort } from '@arbiter/deployables';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CONTROL_PLANE_SETTINGS } from '../src';

// docker/control-plane.Dockerfile and k8s/ cannot be built or applied here: this parses them and
// checks that they agree with the app (port, health routes, configuration keys, secrets).
const repoRoot = join(__dirname, '..', '..', '..');
const app = 'control-plane';
const port = readHttpPort(join(__dirname, '..', 'config'));
const facts = {
  app,
  repoRoot,
  image: 'arbiter/control-plane',
  port,
  settings: CONTROL_PLANE_SETTINGS,
  // Refused at startup outside Development and Testing when missing (spec 1).
  requiredKeys: ['ConnectionStrings:RuleControlPlaneDb', 'RuleControlPlane:AuditPrivateKeyPemPath'],
};

function mutate(file: string, from: string, to: string): void {
  const text = readFileSync(file, 'utf8');
  expect(text).toContain(from);
  writeFileSync(file, text.replace(from, to));
}

describe('control-plane deployables (docker/, k8s/)', () => {
  it('agree with the app: port 3000, /health + /health/live, required keys from ConfigMap and Secrets', () => {
    const report = checkDeployables(facts);
    expect(report.problems).toEqual([]);
    expect(port).toBe(3000);
    expect(report).toMatchObject({
      deployment: 'arbiter-control-plane',
      services: ['arbiter-control-plane'],
      hpa: 'arbiter-control-plane',
    });
    expect(report.requiredKeys).toEqual(expect.arrayContaining(facts.requiredKeys));
    expect(report.env.find((v) => v.key === 'ConnectionStrings:RuleControlPlaneDb')).toMatchObject({
      source: 'secret',
      from: 'arbiter-control-plane-secrets',
    });
  });

  it('catches a wrong containerPort and an unmounted audit key', () => {
    const copy = mkdtempSync(join(tmpdir(), 'deployables-'));
    try {
      cpSync(join(repoRoot, 'k8s'), copy, { recursive: true });
      mutate(join(copy, 'control-plane', 'deployment.yaml'), 'containerPort: 3000', 'containerPort: 3001');
      mutate(
        join(copy, 'control-plane', 'deployment.yaml'),
        'mountPath: /var/run/secrets/arbiter',
        'mountPath: /var/run/secrets/other',
      );
      const { problems } = checkDeployables({ ...facts, k8sDir: copy });
      expect(problems).toEqual(
        expect.arrayContaining([
          expect.stringMatching(/containerPort 3001 does not include the app's port 3000/),
          expect.stringMatching(
            /RuleControlPlane__AuditPrivateKeyPemPath=\/var\/run\/secrets\/arbiter\/audit-key\.pem is under no volumeMount/,
          ),
        ]),
      );
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  });
});
