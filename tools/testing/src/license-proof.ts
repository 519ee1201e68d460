import {
  ActivationProofPayload,
  generateSigningKey,
  privateKeyFromPem,
  PROOF_TYPE,
  signDocument,
} from '@arbiter/licensing';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface LicenseProofFile {
  /** The folder the proof and its key set are written to. */
  dir: string;
  /** The file's name without `.json` (one folder can hold several proofs). */
  name?: string;
  /** The capability keys the proof grants (`*` for every gate). */
  features: string[];
  /** The machine the proof is bound to. */
  machineFingerprint?: string;
  /** Write a proof whose payload was changed after signing (it grants `*`): verification must refuse it. */
  tamper?: boolean;
}

/**
 * A proof as the license server signs it (the same library, a signing key of the test's own), written to
 * `<dir>/<name>.json` with its public key set beside it (`<file>.keys.json`), as a runtime reads them through
 * `License:FilePath`. Valid from a minute ago for a day. Returns the proof's path.
 */
export function writeLicenseProof(options: LicenseProofFile): string {
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
    allowedFeatures: options.features,
    machineFingerprint: options.machineFingerprint ?? 'runtime-1',
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
  const written = options.tamper ? { ...proof, payload: { ...payload, allowedFeatures: ['*'] } } : proof;
  const file = join(options.dir, `${options.name ?? 'proof'}.json`);
  writeFileSync(file, JSON.stringify(written));
  writeFileSync(`${file}.keys.json`, JSON.stringify({ keys: [key.publicJwk] }));
  return file;
}
