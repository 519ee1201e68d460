#!/usr/bin/env node
/**
 * Offline verification in @arbiter/licensing on one core: `verifyActivationProof` (decode, canonical JSON,
 * signature, validity window, machine binding) and `evaluateLicense` (the same plus revocation and the
 * clock check), for DURATION seconds each (default 5). Activation proofs are signed PS256 (RSA-2048 PSS,
 * SHA-256); the raw OpenSSL verification of the same bytes (PS256 and, for comparison, Ed25519: what proofs
 * were signed with before) is the floor. Needs `npm run build` (libs/licensing/dist).
 *   node bench/license/offline.js
 */
const {
  generateSigningKey,
  privateKeyFromPem,
  LicenseKeySet,
  prepareDocument,
  signDocument,
  encodeDocument,
  verifyActivationProof,
  evaluateLicense,
  PROOF_TYPE,
} = require('../../libs/licensing/dist');

const seconds = Number(process.env.DURATION ?? 5);
const key = generateSigningKey('PS256');
const retired = generateSigningKey('PS256');
const answers = generateSigningKey('EdDSA');
const keys = new LicenseKeySet({ keys: [key.publicJwk, retired.publicJwk, answers.publicJwk] });
const now = new Date();
const payload = {
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
};
const proof = signDocument(payload, key.kid, privateKeyFromPem(key.privatePem));
const edProof = signDocument(payload, answers.kid, privateKeyFromPem(answers.privatePem));
const base64 = encodeDocument(proof);
const prepared = prepareDocument(proof);

/**
 * Verifications per second of this process's CPU time (user + system: what one core does, whatever else
 * loads the machine) and, beside it, per second of wall time (what it got on the shared machine).
 */
function measure(label, fn) {
  for (let i = 0; i < 2000; i++) fn(); // warm-up
  let n = 0;
  const end = process.hrtime.bigint() + BigInt(seconds * 1e9);
  const start = process.hrtime.bigint();
  const cpu0 = process.cpuUsage();
  while (process.hrtime.bigint() < end) {
    for (let i = 0; i < 100; i++) if (!fn()) throw new Error(`${label}: not valid`);
    n += 100;
  }
  const cpu = process.cpuUsage(cpu0);
  const elapsed = Number(process.hrtime.bigint() - start) / 1e9;
  const rate = n / ((cpu.user + cpu.system) / 1e6);
  const wall = n / elapsed;
  console.log(
    `${label.padEnd(54)} ${Math.round(rate).toLocaleString('en-US').padStart(8)} /s of CPU   ${(1e6 / rate).toFixed(1).padStart(6)} µs each   ` +
      `(wall: ${Math.round(wall).toLocaleString('en-US')} /s)`,
  );
  return rate;
}

console.log(
  `node ${process.version}, one core, ${seconds} s per measurement (goal ≥ 20,000 verifications/s)\n`,
);
// the floor: OpenSSL's verification of the same bytes alone (what this machine can do right now)
const crypto = require('node:crypto');
const { canonicalJson } = require('../../libs/licensing/dist');
const bytes = Buffer.from(canonicalJson(proof.payload));
const pss = {
  key: keys.get(key.kid),
  padding: crypto.constants.RSA_PKCS1_PSS_PADDING,
  saltLength: crypto.constants.RSA_PSS_SALTLEN_DIGEST,
};
const signature = Buffer.from(proof.signature, 'base64url');
const raw = measure('raw crypto.verify (PS256, same bytes)', () =>
  crypto.verify('sha256', bytes, pss, signature),
);
const edSignature = Buffer.from(edProof.signature, 'base64url');
const edKey = keys.get(answers.kid);
measure('raw crypto.verify (Ed25519, same bytes)', () => crypto.verify(null, bytes, edKey, edSignature));
measure(
  'verifyActivationProof (Ed25519 proof object, before)',
  () => verifyActivationProof(edProof, keys, { now, machineFingerprint: 'build-agent-01' }).valid,
);
const object = measure(
  'verifyActivationProof (PS256 proof object)',
  () => verifyActivationProof(proof, keys, { now, machineFingerprint: 'build-agent-01' }).valid,
);
const held = measure(
  'verifyActivationProof (PS256, prepared once)',
  () => verifyActivationProof(prepared, keys, { now, machineFingerprint: 'build-agent-01' }).valid,
);
measure(
  'verifyActivationProof (PS256 base64 string)',
  () => verifyActivationProof(base64, keys, { now }).valid,
);
measure(
  'evaluateLicense (PS256 proof + revocation + clock)',
  () => evaluateLicense({ proof, keys, now }).valid,
);
measure(
  'evaluateLicense (PS256 prepared + revocation + clock)',
  () => evaluateLicense({ proof: prepared, keys, now }).valid,
);
console.log(
  `\nlibrary overhead over the raw verification: ${(1e6 / object - 1e6 / raw).toFixed(1)} µs (object), ` +
    `${(1e6 / held - 1e6 / raw).toFixed(1)} µs (prepared)`,
);
const load = require('node:os')
  .loadavg()
  .map((l) => l.toFixed(1))
  .join(' ');
for (const [label, rate] of [
  ['PS256 proof object', object],
  ['PS256 proof prepared once', held],
])
  console.log(
    `${rate >= 20000 ? 'meets' : 'BELOW'} the goal of 20,000/s on one core: ${label} (per CPU second)`,
  );
console.log(`load average at the end: ${load} (shared machine: compare with the raw floor of the same run)`);
