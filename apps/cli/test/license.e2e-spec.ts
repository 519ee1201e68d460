import { identityService } from '@arbiter/identity';
import { startServiceForTest, ServiceUnderTest } from '@arbiter/testing';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LicenseCliIo, runLicenseCli } from '../src/commands/license';

const ADMIN_KEY = 'cli-admin-key-0123456789';

/** Runs `arbiter license …` in process (the real parser and commands), capturing its output. */
async function cli(args: string[], env: Record<string, string> = {}) {
  let stdout = '';
  let stderr = '';
  const io: LicenseCliIo = {
    out: (t) => (stdout += t),
    err: (t) => (stderr += t),
    env,
    machineName: () => 'ci-runner-7',
    timeoutMs: 5000,
  };
  const code = await runLicenseCli(args, io);
  return { code, stdout, stderr };
}

describe('arbiter license', () => {
  let sut: ServiceUnderTest;
  let dir: string;
  let licenseKey: string;
  beforeAll(async () => {
    sut = await startServiceForTest(identityService, 'ConnectionStrings:LicenseDb', {
      overrides: { 'LicenseServer:AdminApiKey': ADMIN_KEY },
    });
    dir = mkdtempSync(join(tmpdir(), 'arbiter-license-'));
    const res = await fetch(`${sut.url}/api/v1/keys/generate`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-admin-api-key': ADMIN_KEY },
      body: JSON.stringify({
        organizationId: 'o',
        organizationName: 'O',
        tier: 'Licensed',
        validDays: 10,
        maxActivations: 1,
        allowedFeatures: ['api.validate'],
      }),
    });
    licenseKey = ((await res.json()) as any).result.licenseKey;
  }, 120_000);
  afterAll(() => sut?.stop());

  it('--help on each command', async () => {
    for (const args of [['--help'], ['activate', '--help'], ['features', '--help'], ['verify', '--help']]) {
      const run = await cli(args);
      expect(run.code).toBe(0);
      expect(run.stdout).toMatch(/Usage: arbiter license/);
    }
    expect((await cli(['activate', '--help'])).stdout).toMatch(/--fingerprint/);
  });

  it('activates (default fingerprint = machine name), saves the decoded proof, verifies it offline', async () => {
    const output = join(dir, 'proof.json');
    const run = await cli([
      'activate',
      '--key',
      licenseKey,
      '--server',
      sut.url,
      '--environment',
      'Production',
      '--output',
      output,
    ]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^Activated license .* on ci-runner-7/);
    const proof = JSON.parse(readFileSync(output, 'utf8'));
    expect(proof).toMatchObject({
      alg: 'PS256',
      payload: { machineFingerprint: 'ci-runner-7', environment: 'Production' },
    });

    const verify = await cli(['verify', '--proof', output, '--fingerprint', 'ci-runner-7']);
    expect(verify.code).toBe(0);
    expect(verify.stdout).toMatch(/^OK: license .* \(Licensed: api.validate\)/);
    expect(verify.stdout).toMatch(/signed by lic-\S+ \(PS256\)/);

    // tampered: exit 1 with the reason
    const tampered = join(dir, 'tampered.json');
    writeFileSync(
      tampered,
      JSON.stringify({ ...proof, payload: { ...proof.payload, allowedFeatures: ['*'] } }),
    );
    const bad = await cli(['verify', '--proof', tampered, '--keys', `${output}.keys.json`]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/NOT valid: BAD_SIGNATURE/);
    // another machine
    expect((await cli(['verify', '--proof', output, '--fingerprint', 'elsewhere'])).code).toBe(1);

    // the second machine is over maxActivations 1: rejected, exit 1, one line
    const second = await cli([
      'activate',
      '--key',
      licenseKey,
      '--server',
      sut.url,
      '--environment',
      'Production',
      '--output',
      join(dir, 'p2.json'),
      '--fingerprint',
      'other',
    ]);
    expect(second.code).toBe(1);
    expect(second.stderr).toMatch(
      /^arbiter license: activation rejected \(409 ACTIVATION_LIMIT_REACHED: .*\)\n$/,
    );
  });

  it('features: add/remove with the admin token from the option or SVC_LICENSE_ADMIN_TOKEN', async () => {
    const added = await cli([
      'features',
      '--key',
      licenseKey,
      '--add',
      'pdf.canary,pdf.registry',
      '--server',
      sut.url,
      '--admin-token',
      ADMIN_KEY,
    ]);
    expect(added.code).toBe(0);
    expect(added.stdout).toMatch(`${licenseKey}: api.validate, pdf.canary, pdf.registry`);
    const removed = await cli(
      ['features', '--key', licenseKey, '--remove', 'pdf.registry', '--server', sut.url],
      {
        SVC_LICENSE_ADMIN_TOKEN: ADMIN_KEY,
      },
    );
    expect(removed.code).toBe(0);
    expect(removed.stdout).toMatch(`${licenseKey}: api.validate, pdf.canary `);
    const wrong = await cli([
      'features',
      '--key',
      licenseKey,
      '--add',
      'x',
      '--server',
      sut.url,
      '--admin-token',
      'nope',
    ]);
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toMatch(/rejected \(401 ADMIN_KEY_INVALID/);
  });

  it('usage errors are exit 2, a mistyped key is caught before any network call, an unreachable server is exit 3', async () => {
    expect((await cli(['activate', '--key', licenseKey])).code).toBe(2); // missing required options
    expect((await cli(['features', '--key', licenseKey, '--admin-token', 'x'])).code).toBe(2); // neither --add nor --remove
    expect((await cli(['features', '--key', licenseKey, '--add', 'x'])).stderr).toMatch(/no admin token/);
    expect((await cli(['bogus'])).code).toBe(2);
    const typo = licenseKey.slice(0, 4) + (licenseKey[4] === 'A' ? 'B' : 'A') + licenseKey.slice(5);
    // port 9 (discard): nothing listens, but the key is refused before any call
    const mistyped = await cli([
      'activate',
      '--key',
      typo,
      '--server',
      'http://127.0.0.1:9',
      '--environment',
      'P',
      '--output',
      join(dir, 'x.json'),
    ]);
    expect(mistyped.code).toBe(2);
    expect(mistyped.stderr).toMatch(/mistyped/);
    const unreachable = await cli([
      'activate',
      '--key',
      licenseKey,
      '--server',
      'http://127.0.0.1:9',
      '--environment',
      'P',
      '--output',
      join(dir, 'x.json'),
    ]);
    expect(unreachable.code).toBe(3);
    expect(unreachable.stderr).toMatch(
      /^arbiter license: cannot reach the license server at http:\/\/127.0.0.1:9 /,
    );
    expect((await cli(['verify', '--proof', join(dir, 'missing.json')])).code).toBe(2);
  });
});
