import { startServiceForTest, ServiceUnderTest, writeLicenseProof } from '@arbiter/testing';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { controlPlaneService } from '../src';

const writeProof = (dir: string, name: string, features: string[], tamper = false) =>
  writeLicenseProof({ dir, name, features, machineFingerprint: 'cp-1', tamper });

describe('control plane under a license proof (License:FilePath, License:EnforceOnMiddleware)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'arbiter-license-runtime-'));
  const started: ServiceUnderTest[] = [];
  afterAll(async () => {
    for (const s of started) await s.stop();
  });
  async function start(overrides: Record<string, string | number | boolean>) {
    const sut = await startServiceForTest(controlPlaneService, 'ConnectionStrings:RuleControlPlaneDb', {
      overrides,
    });
    started.push(sut);
    return sut;
  }
  const get = async (base: string, path: string) => {
    const res = await fetch(`${base}${path}`, { headers: { 'x-tenant-id': 'acme' } });
    return { status: res.status, body: (await res.json()) as any };
  };

  it('reports the proof on /api/v1/info and gates canary on pdf.canary', async () => {
    const withoutCanary = await start({
      'License:EnforceOnMiddleware': true,
      'License:FilePath': writeProof(dir, 'no-canary', ['api.validate']),
      'ControlPlaneRuntimeInfo:Tier': 'Free',
    });
    const info = await get(withoutCanary.url, '/api/v1/info');
    expect(info.body).toMatchObject({
      tier: 'Licensed',
      isValid: true,
      licenseId: '0f4e2b9a-1c3d-4e5f-8a7b-6c5d4e3f2a1b',
      allowedFeatures: ['api.validate'],
      activationProof: expect.any(String),
    });
    const refused = await get(withoutCanary.url, '/api/v1/canary');
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe('LICENSE_FEATURE_REQUIRED');

    const withCanary = await start({
      'License:EnforceOnMiddleware': true,
      'License:FilePath': writeProof(dir, 'canary', ['pdf.canary']),
    });
    expect((await get(withCanary.url, '/api/v1/canary')).status).toBe(200);
  }, 180_000);

  it('a tampered proof is reported invalid and refused; without a proof file the settings are reported', async () => {
    const tampered = await start({
      'License:EnforceOnMiddleware': true,
      'License:FilePath': writeProof(dir, 'tampered', ['pdf.canary'], true),
    });
    const info = await get(tampered.url, '/api/v1/info');
    expect(info.body).toMatchObject({ isValid: false, licenseId: null, allowedFeatures: [] });
    const refused = await get(tampered.url, '/api/v1/canary');
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe('LICENSE_INVALID');

    const plain = await start({
      'ControlPlaneRuntimeInfo:Tier': 'Enterprise',
      'ControlPlaneRuntimeInfo:IsValid': true,
    });
    expect((await get(plain.url, '/api/v1/info')).body).toMatchObject({ tier: 'Enterprise', isValid: true });
    // enforcement off: canary is not gated
    expect((await get(plain.url, '/api/v1/canary')).status).toBe(200);
  }, 180_000);

  it('refuses to start with enforcement on and no readable proof, naming the key', async () => {
    await expect(start({ 'License:EnforceOnMiddleware': true })).rejects.toThrow(/License:FilePath/);
    await expect(
      start({ 'License:EnforceOnMiddleware': true, 'License:FilePath': join(dir, 'missing.json') }),
    ).rejects.toThrow(/License:FilePath/);
  }, 120_000);
});
