import { generateSigningKey, privateKeyFromPem, PROOF_TYPE, signDocument } from '@arbiter/licensing';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AppError } from '../errors/app-error';
import { LicenseRuntimeSettings, RuntimeLicense, RuntimeLicenseCheck } from './license-runtime';

function proofFile(features: string[], expiresInMs = 86_400_000) {
  const dir = mkdtempSync(join(tmpdir(), 'runtime-license-'));
  const key = generateSigningKey();
  const now = Date.now();
  const proof = signDocument(
    {
      typ: PROOF_TYPE,
      proofId: 'p',
      licenseId: 'l-1',
      licenseKeyHint: 'ARB-…',
      organizationId: 'o',
      organizationName: 'O',
      tier: 'Enterprise' as const,
      allowedFeatures: features,
      machineFingerprint: 'm',
      fingerprintScope: 'MachineAndProject' as const,
      environment: 'Production',
      productVersion: '1',
      manifestHash: null,
      issuedAt: new Date(now - 1000).toISOString(),
      expiresAt: new Date(now + expiresInMs).toISOString(),
      nonce: 'n',
      serverTime: new Date(now - 1000).toISOString(),
      counter: 1,
    },
    key.kid,
    privateKeyFromPem(key.privatePem),
  );
  const file = join(dir, 'proof.json');
  writeFileSync(file, JSON.stringify(proof));
  writeFileSync(`${file}.keys.json`, JSON.stringify({ keys: [key.publicJwk] }));
  return file;
}

function runtime(values: Partial<LicenseRuntimeSettings>) {
  const settings = Object.assign(new LicenseRuntimeSettings(), values);
  const license = new RuntimeLicense(settings);
  license.onModuleInit();
  return license;
}

const code = (fn: () => void) => {
  try {
    fn();
    return 'passed';
  } catch (error) {
    return (error as AppError).code;
  }
};

describe('RuntimeLicense (the pipeline license step)', () => {
  it('passes a valid proof, gates features (* passes all), refuses an expired one', () => {
    const license = runtime({ enforceOnMiddleware: true, filePath: proofFile(['*']) });
    const check = new RuntimeLicenseCheck(license);
    expect(code(() => check.check())).toBe('passed');
    expect(code(() => license.assertFeature('pdf.canary'))).toBe('passed');
    const narrow = runtime({ enforceOnMiddleware: true, filePath: proofFile(['api.validate']) });
    expect(code(() => narrow.assertFeature('pdf.canary'))).toBe('LICENSE_FEATURE_REQUIRED');
    const expired = runtime({ enforceOnMiddleware: true, filePath: proofFile(['*'], -1) });
    expect(code(() => new RuntimeLicenseCheck(expired).check())).toBe('LICENSE_INVALID');
    expect(expired.state().reason).toBe('EXPIRED');
  });

  it('does nothing without enforcement; refuses to start when enforcement has no proof', () => {
    const off = runtime({ filePath: proofFile([], -1) });
    expect(code(() => off.assertValid())).toBe('passed');
    expect(off.state().valid).toBe(false);
    expect(() => runtime({ enforceOnMiddleware: true })).toThrow(/License:FilePath/);
  });
});
