#!/usr/bin/env node
/**
 * Offline verification in @arbiter/licensing on one core: `verifyActivationProof` (decode, canonical JSON,
 * Ed25519 signature, validity window, machine binding) and `evaluateLicense` (the same plus revocation
 * and the clock check), for DURATION seconds each (default 5). Needs `npm run build` (libs/licensing/dist).
 *   node bench/license/offline.js
 */
const {
  generateSigningKey,
  privateKeyFromPem,
  LicenseKeySet,
  signDocument,
  encodeDocument,
  verifyActivationProof,
  evaluateLicense,
  PROOF_TYPE,
} = require('../../libs/licensing/dist');

const seconds = Number(process.env.DURATION ?? 5);
const key = generateSigningKey();
const retired = generateSigningKey();
const keys = new LicenseKeySet({ keys: [key.publicJwk, retired.publicJwk] });
const now = new Date();
const proof = signDocument(
  {
    typ: PROOF_TYPE,
    proofId: '5b0e8c0e-4a43-4d6e-9d0f-6a1d8b1f2c3d',
    licenseId: '0f4e2b9a-1c3d-4e5f-8a7b-6c5d4e3f2a1b',
    licenseKeyHint: 'ARB-7K3QX-…-5H',
    organizationId: 'org-acme',
    organizationName: 'Acme Corp',
    tier: 'Licensed',
    allowedFeatures: [
      'vsix.publish',
      'vsix.watch',
      'vsix.explorer',
      'api.validate',
      'cp.publish',
      'pdf.canary',
    ],
    machineFingerprint: 'build-agent-01',
    fingerprintScope: 'MachineAndProject',
    environment: 'Production',
    productVersion: '2.4.0',
    manifestHash: null,
    issuedAt: new Date(now.getTime() - 86_400_000).toISOString(),
    expiresAt: new Date(now.getTime() + 365 * 86_400_000).toISOString(),
    nonce: 'Jx1r0m4S7pW2vQ9kL3zX8cV1EaB6nD5f',
    serverTime: new Date(now.getTime() - 86_400_000).toISOString(),
    counter: 42,
  },
  key.kid,
  privateKeyFromPem(key.privatePem),
);
const base64 = encodeDocument(proof);

function measure(label, fn) {
  for (let i = 0; i < 2000; i++) fn(); // warm-up
  let n = 0;
  const end = process.hrtime.bigint() + BigInt(seconds * 1e9);
  const start = process.hrtime.bigint();
  while (process.hrtime.bigint() < end) {
    for (let i = 0; i < 100; i++) if (!fn()) throw new Error(`${label}: not valid`);
    n += 100;
  }
  const elapsed = Number(process.hrtime.bigint() - start) / 1e9;
  const rate = n / elapsed;
  console.log(
    `${label.padEnd(52)} ${Math.round(rate).toLocaleString('en-US').padStart(8)} /s   ${(1e6 / rate).toFixed(1)} µs each`,
  );
  return rate;
}

console.log(
  `node ${process.version}, one core, ${seconds} s per measurement (goal ≥ 20,000 verifications/s)\n`,
);
// the floor: OpenSSL's Ed25519 verification of the same bytes alone (what this machine can do right now)
const crypto = require('node:crypto');
const { canonicalJson } = require('../../libs/licensing/dist');
const bytes = Buffer.from(canonicalJson(proof.payload));
const signature = Buffer.from(proof.signature, 'base64url');
const publicKey = keys.get(key.kid);
measure('raw crypto.verify (Ed25519, same bytes)', () => crypto.verify(null, bytes, publicKey, signature));
const object = measure(
  'verifyActivationProof (proof object)',
  () => verifyActivationProof(proof, keys, { now, machineFingerprint: 'build-agent-01' }).valid,
);
measure('verifyActivationProof (base64 string)', () => verifyActivationProof(base64, keys, { now }).valid);
measure('evaluateLicense (proof + revocation + clock)', () => evaluateLicense({ proof, keys, now }).valid);
console.log(`\n${object >= 20000 ? 'meets' : 'BELOW'} the goal of 20,000/s (proof object)`);
