import { checkDeployables, deriveRequiredKeys, readHttpPort } from '@arbiter/deployables';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { IDENTITY_SETTINGS } from '../src';

// docker/identity.Dockerfile and k8s/ cannot be built or applied here: this parses them and
// checks that they agree with the app (port, health routes, configuration keys, secrets).
const repoRoot = join(__dirname, '..', '..', '..');
const port = readHttpPort(join(__dirname, '..', 'config'));
const facts = {
  app: 'identity',
  repoRoot,
  image: 'arbiter/identity',
  port,
  settings: IDENTITY_SETTINGS,
  // The spec's required keys; the token keys are also validated by TokenSettings.
  requiredKeys: [
    'ConnectionStrings:LicenseDb',
    'TokenConfigs:SymmetricSecretKey',
    'TokenConfigs:Issuer',
    'TokenConfigs:Audience',
    'LicenseServer:AdminApiKey',
  ],
};

function mutate(file: string, from: string | RegExp, to: string): void {
  const text = readFileSync(file, 'utf8');
  expect(text).toMatch(from);
  writeFileSync(file, text.replace(from, to));
}

describe('identity deployables (docker/, k8s/)', () => {
  it('agree with the app: port 3002, /health + /health/live, required keys and mounted token keys', () => {
    const report = checkDeployables(facts);
    expect(report.problems).toEqual([]);
    expect(port).toBe(3002);
    expect(report).toMatchObject({
      deployment: 'arbiter-identity',
      services: ['arbiter-identity'],
      hpa: 'arbiter-identity',
    });
    expect(report.requiredKeys).toEqual(expect.arrayContaining(facts.requiredKeys));
    const secrets = report.env.filter((v) => v.source === 'secret').map((v) => v.key);
    expect(secrets).toEqual(
      expect.arrayContaining([
        'ConnectionStrings:LicenseDb',
        'TokenConfigs:SymmetricSecretKey',
        'LicenseServer:AdminApiKey',
      ]),
    );
    expect(report.env.find((v) => v.key === 'TokenConfigs:PrivateKeyPath')?.value).toBe(
      '/var/run/secrets/arbiter/token-private.pem',
    );
  });

  it('derives the keys TokenSettings and the connection strings refuse to start without in Production', () => {
    const derived = deriveRequiredKeys(IDENTITY_SETTINGS, join(__dirname, '..', 'config'), 'Production');
    expect(derived).toEqual(
      expect.arrayContaining([
        'ConnectionStrings:LicenseDb',
        'TokenConfigs:SymmetricSecretKey',
        'TokenConfigs:Issuer',
        'TokenConfigs:Audience',
      ]),
    );
  });

  it('catches a Secret key missing from secrets.example.yaml and an HPA aimed at another Deployment', () => {
    const copy = mkdtempSync(join(tmpdir(), 'deployables-'));
    try {
      cpSync(join(repoRoot, 'k8s'), copy, { recursive: true });
      mutate(join(copy, 'secrets.example.yaml'), 'LicenseServer__AdminApiKey:', 'LicenseServer__AdminKey:');
      mutate(
        join(copy, 'identity', 'hpa.yaml'),
        /kind: Deployment\n(\s+)name: arbiter-identity/,
        'kind: Deployment\n$1name: identity',
      );
      const { problems } = checkDeployables({ ...facts, k8sDir: copy });
      expect(problems).toEqual(
        expect.arrayContaining([
          expect.stringMatching(
            /reads key LicenseServer__AdminApiKey of Secret arbiter-identity-secrets, which secrets.example.yaml does not show/,
          ),
          expect.stringMatching(
            /expected one HorizontalPodAutoscaler targeting Deployment arbiter-identity, found 0/,
          ),
        ]),
      );
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  });
});
