import {
  ActivationProofPayload,
  generateSigningKey,
  privateKeyFromPem,
  PROOF_TYPE,
  signDocument,
} from '@arbiter/licensing';
import { startServiceForTest, ServiceUnderTest } from '@arbiter/testing';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { controlPlaneService } from '../src';

/** A proof as the license server signs it (same library, a key of the test's own) and its public key set. */
function writeProof(dir: string, name: string, features: string[], tamper = false) {
  const key = generateSigningKey();
  const now = Date.now();
  const payload: ActivationProofPayload = {
    typ: PROOF_TYPE,
    proofId: '5b0e8c0e-4a43-4d6e-9d0f-6a1d8b1f2c3d',
    licenseId: '0f4e2b9a-1c3d-4e5f-8a7b-6c5d4e3f2a1b',
    licenseKeyHint: 'ARB-AAAAA-…-00',
    organizationId: 'org',
    organizationName: 'Org',
    tier: 'Licensed',
    allowedFeatures: features,
    machineFingerprint: 'cp-1',
    fingerprintScope: 'MachineAndProject',
    environment: 'Production',
    productVersion: '1.0.0',
    manifestHash: null,
    issuedAt: new Date(now - 60_000).toISOString(),
    expiresAt: new Date(now + 86_400_000).toISOString(),
    nonce: 'n'.repeat(32),
    serverTime: new Date(now - 60_000).toISOString(),
    counter: 1,
  };
  const proof = signDocument(payload, key.kid, privateKeyFromPem(key.privatePem));
  const file = join(dir, `${name}.json`);
  const body = tamper ? { ...proof, payload: { ...payload, allowedFeatures: ['*'] } } : proof;
  writeFileSync(file, JSON.stringify(body));
  writeFileSync(`${file}.keys.json`, JSON.stringify({ keys: [key.publicJwk] }));
  return file;
}

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
