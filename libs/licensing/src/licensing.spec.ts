import {
  ActivationProofPayload,
  checkClock,
  checkLicenseKey,
  DEFAULT_FEATURES_BY_TIER,
  encodeDocument,
  evaluateLicense,
  generateLicenseKey,
  generateSigningKey,
  hasFeature,
  HEARTBEAT_TYPE,
  HeartbeatAnswerPayload,
  LicenseKeySet,
  prepareDocument,
  privateKeyFromPem,
  PROOF_TYPE,
  RevocationSnapshotPayload,
  signDocument,
  SNAPSHOT_TYPE,
  updateFeatures,
  verifyActivationProof,
  verifyHeartbeatAnswer,
  verifyRevocationSnapshot,
} from './index';

const key = generateSigningKey();
const other = generateSigningKey();
const keys = new LicenseKeySet({ keys: [key.publicJwk] });
const signer = privateKeyFromPem(key.privatePem);
const NOW = new Date('2026-06-01T12:00:00Z');

function payload(overrides: Partial<ActivationProofPayload> = {}): ActivationProofPayload {
  return {
    typ: PROOF_TYPE,
    proofId: 'p-1',
    licenseId: 'l-1',
    licenseKeyHint: 'ARB-AAAAA-…-XX',
    organizationId: 'org-1',
    organizationName: 'Acme',
    tier: 'Licensed',
    allowedFeatures: ['pdf.canary', 'api.validate'],
    machineFingerprint: 'build-01',
    fingerprintScope: 'MachineAndProject',
    environment: 'Production',
    productVersion: '1.0.0',
    manifestHash: null,
    issuedAt: '2026-05-01T00:00:00.000Z',
    expiresAt: '2027-05-01T00:00:00.000Z',
    nonce: 'n-0',
    serverTime: '2026-05-01T00:00:00.000Z',
    counter: 10,
    ...overrides,
  };
}

describe('activation proofs', () => {
  it('verifies a signed proof (object, JSON text and base64) and gates features', () => {
    const proof = signDocument(payload(), key.kid, signer);
    for (const form of [proof, JSON.stringify(proof), encodeDocument(proof)]) {
      const result = verifyActivationProof(form, keys, { now: NOW, machineFingerprint: 'build-01' });
      expect(result).toMatchObject({ valid: true, kid: key.kid });
    }
    expect(hasFeature(proof.payload.allowedFeatures, 'pdf.canary')).toBe(true);
    expect(hasFeature(proof.payload.allowedFeatures, 'pdf.designer')).toBe(false);
    expect(hasFeature(['*'], 'pdf.designer')).toBe(true);
    expect(hasFeature(undefined, 'pdf.designer')).toBe(false);
  });

  it('refuses a tampered proof, an unknown key, another algorithm, another kind, a wrong machine, an expired one', () => {
    const proof = signDocument(payload(), key.kid, signer);
    const tampered = { ...proof, payload: { ...proof.payload, allowedFeatures: ['*'] } };
    expect(verifyActivationProof(tampered, keys, { now: NOW })).toMatchObject({
      valid: false,
      reason: 'BAD_SIGNATURE',
    });
    const foreign = signDocument(payload(), other.kid, privateKeyFromPem(other.privatePem));
    expect(verifyActivationProof(foreign, keys, { now: NOW })).toMatchObject({
      valid: false,
      reason: 'UNKNOWN_KEY',
    });
    // a foreign key claiming a trusted kid
    const forged = signDocument(payload(), key.kid, privateKeyFromPem(other.privatePem));
    expect(verifyActivationProof(forged, keys, { now: NOW })).toMatchObject({
      valid: false,
      reason: 'BAD_SIGNATURE',
    });
    expect(verifyActivationProof({ ...proof, alg: 'none' }, keys, { now: NOW })).toMatchObject({
      reason: 'UNSUPPORTED_ALGORITHM',
    });
    const snapshot = signDocument({ typ: SNAPSHOT_TYPE, sequence: 1 } as any, key.kid, signer);
    expect(verifyActivationProof(snapshot, keys, { now: NOW })).toMatchObject({ reason: 'WRONG_TYPE' });
    expect(verifyActivationProof('garbage', keys)).toMatchObject({ reason: 'MALFORMED' });
    expect(verifyActivationProof(proof, keys, { now: NOW, machineFingerprint: 'other' })).toMatchObject({
      reason: 'FINGERPRINT_MISMATCH',
    });
    const projectOnly = signDocument(payload({ fingerprintScope: 'ProjectOnly' }), key.kid, signer);
    expect(verifyActivationProof(projectOnly, keys, { now: NOW, machineFingerprint: 'other' }).valid).toBe(
      true,
    );
    expect(verifyActivationProof(proof, keys, { now: new Date('2027-05-01T00:00:00Z') })).toMatchObject({
      reason: 'EXPIRED',
    });
  });

  it('keeps old proofs verifiable after a rotation while the old public key is kept', () => {
    const old = signDocument(payload(), key.kid, signer);
    const rotated = signDocument(payload(), other.kid, privateKeyFromPem(other.privatePem));
    const both = new LicenseKeySet({ keys: [other.publicJwk, key.publicJwk] });
    expect(verifyActivationProof(old, both, { now: NOW }).valid).toBe(true);
    expect(verifyActivationProof(rotated, both, { now: NOW })).toMatchObject({ valid: true, kid: other.kid });
  });

  it('skips malformed JWKS entries', () => {
    const set = new LicenseKeySet({
      keys: [{ kty: 'RSA', kid: 'r' }, key.publicJwk, { kty: 'OKP', crv: 'Ed25519', x: '!', kid: 'bad' }],
    });
    expect(set.kids).toEqual([key.kid]);
    expect(set.rejected).toEqual(['r', 'bad']);
  });
});

describe('PS256 proofs (RSA-2048 PSS), beside Ed25519', () => {
  const rsa = generateSigningKey('PS256');
  const rsaSigner = privateKeyFromPem(rsa.privatePem);
  const both = new LicenseKeySet({ keys: [rsa.publicJwk, key.publicJwk] });

  it('publishes an RSA key with its alg and verifies PS256 proofs in every form, prepared too', () => {
    expect(rsa.publicJwk).toMatchObject({ kty: 'RSA', alg: 'PS256', use: 'sig', kid: rsa.kid, e: 'AQAB' });
    const proof = signDocument(payload(), rsa.kid, rsaSigner);
    expect(proof.alg).toBe('PS256');
    expect(Buffer.from(proof.signature, 'base64url')).toHaveLength(256);
    for (const form of [proof, JSON.stringify(proof), encodeDocument(proof), prepareDocument(proof)]) {
      expect(verifyActivationProof(form, both, { now: NOW })).toMatchObject({ valid: true, kid: rsa.kid });
    }
    // a proof signed with Ed25519 before PS256 verifies beside it under its own kid
    const legacy = signDocument(payload(), key.kid, signer);
    expect(verifyActivationProof(legacy, both, { now: NOW })).toMatchObject({ valid: true, kid: key.kid });
    expect(evaluateLicense({ proof: prepareDocument(proof), keys: both, now: NOW }).valid).toBe(true);
  });

  it('refuses tampering, algorithm confusion, a wrong signature length and weak or unlabelled RSA keys', () => {
    const proof = signDocument(payload(), rsa.kid, rsaSigner);
    const tampered = { ...proof, payload: { ...proof.payload, tier: 'Enterprise' } };
    expect(verifyActivationProof(tampered, both, { now: NOW })).toMatchObject({ reason: 'BAD_SIGNATURE' });
    // a document claiming another algorithm than its key's
    expect(verifyActivationProof({ ...proof, alg: 'EdDSA' }, both, { now: NOW })).toMatchObject({
      reason: 'UNSUPPORTED_ALGORITHM',
    });
    const ed = signDocument(payload(), key.kid, signer);
    expect(verifyActivationProof({ ...ed, alg: 'PS256' }, both, { now: NOW })).toMatchObject({
      reason: 'UNSUPPORTED_ALGORITHM',
    });
    // an Ed25519 signature presented under the RSA kid
    expect(verifyActivationProof({ ...ed, kid: rsa.kid, alg: 'PS256' }, both, { now: NOW })).toMatchObject({
      reason: 'BAD_SIGNATURE',
    });
    const truncated = { ...proof, signature: proof.signature.slice(0, 100) };
    expect(verifyActivationProof(truncated, both, { now: NOW })).toMatchObject({ reason: 'BAD_SIGNATURE' });
    const { alg: _alg, ...unlabelled } = rsa.publicJwk;
    const weak = require('node:crypto').generateKeyPairSync('rsa', { modulusLength: 1024 });
    const weakJwk = { ...weak.publicKey.export({ format: 'jwk' }), kid: 'weak', alg: 'PS256' };
    const set = new LicenseKeySet({ keys: [{ ...unlabelled, kid: 'unlabelled' }, weakJwk, rsa.publicJwk] });
    expect(set.kids).toEqual([rsa.kid]);
    expect(set.rejected).toEqual(['unlabelled', 'weak']);
    expect(() =>
      privateKeyFromPem(weak.privateKey.export({ format: 'pem', type: 'pkcs8' }).toString()),
    ).toThrow();
  });

  it('a prepared document carries the bytes of the payload it shows: frozen, and malformed input stays malformed', () => {
    const proof = signDocument(payload(), rsa.kid, rsaSigner);
    const prepared = prepareDocument(proof);
    expect(Object.isFrozen(prepared.document!.payload)).toBe(true);
    expect(() => {
      (prepared.document!.payload as { tier: string }).tier = 'Enterprise';
    }).toThrow();
    // the original stays the caller's (prepared from a copy)
    proof.payload.tier = 'Enterprise';
    expect(verifyActivationProof(prepared, both, { now: NOW })).toMatchObject({ valid: true });
    expect(verifyActivationProof(proof, both, { now: NOW })).toMatchObject({ reason: 'BAD_SIGNATURE' });
    expect(verifyActivationProof(prepareDocument('garbage'), both)).toMatchObject({ reason: 'MALFORMED' });
    expect(prepareDocument(prepared)).toBe(prepared);
  });
});

describe('revocation snapshots and heartbeat answers', () => {
  const snapshot = (sequence: number, revoked: RevocationSnapshotPayload['revoked'] = []) =>
    signDocument<RevocationSnapshotPayload>(
      {
        typ: SNAPSHOT_TYPE,
        sequence,
        issuedAt: NOW.toISOString(),
        serverTime: NOW.toISOString(),
        counter: 20,
        revoked,
      },
      key.kid,
      signer,
    );

  it('refuses a snapshot older than the last accepted one', () => {
    expect(verifyRevocationSnapshot(snapshot(5), keys, { lastSequence: 5 }).valid).toBe(true);
    expect(verifyRevocationSnapshot(snapshot(4), keys, { lastSequence: 5 })).toMatchObject({
      valid: false,
      reason: 'STALE_SEQUENCE',
    });
  });

  it('a revoked license works until its grace deadline, then not', () => {
    const proof = signDocument(payload(), key.kid, signer);
    const s = snapshot(2, [
      {
        licenseId: 'l-1',
        revokedAt: NOW.toISOString(),
        reason: 'unpaid',
        graceDeadline: '2026-06-02T12:00:00.000Z',
      },
    ]);
    const checked = verifyRevocationSnapshot(s, keys);
    if (!checked.valid) throw new Error('snapshot');
    const during = evaluateLicense({ proof, keys, now: NOW, snapshot: checked.payload });
    expect(during).toMatchObject({ valid: true, graceDeadline: '2026-06-02T12:00:00.000Z' });
    const after = evaluateLicense({
      proof,
      keys,
      now: new Date('2026-06-02T12:00:01Z'),
      snapshot: checked.payload,
    });
    expect(after).toMatchObject({ valid: false, reason: 'REVOKED' });
  });

  it('a heartbeat answer saying revoked is honoured and bound to its proof', () => {
    const proof = signDocument(payload(), key.kid, signer);
    const answer = signDocument<HeartbeatAnswerPayload>(
      {
        typ: HEARTBEAT_TYPE,
        proofId: 'p-1',
        licenseId: 'l-1',
        machineFingerprint: 'build-01',
        previousNonce: 'n-0',
        nonce: 'n-1',
        isRevoked: true,
        graceDeadline: '2026-06-01T13:00:00.000Z',
        serverTime: NOW.toISOString(),
        counter: 30,
      },
      key.kid,
      signer,
    );
    const hb = verifyHeartbeatAnswer(answer, keys, proof.payload);
    if (!hb.valid) throw new Error(hb.message);
    expect(evaluateLicense({ proof, keys, now: NOW, heartbeat: hb.payload }).valid).toBe(true);
    expect(
      evaluateLicense({ proof, keys, now: new Date('2026-06-01T13:00:00Z'), heartbeat: hb.payload }),
    ).toMatchObject({ valid: false, reason: 'REVOKED' });
    expect(verifyHeartbeatAnswer(answer, keys, { ...proof.payload, proofId: 'p-2' })).toMatchObject({
      reason: 'FINGERPRINT_MISMATCH',
    });
  });
});

describe('clock tampering', () => {
  it('detects a clock set back behind the server time or the last check, and a replayed older document', () => {
    const proof = signDocument(payload(), key.kid, signer);
    const first = evaluateLicense({ proof, keys, now: NOW });
    expect(first.valid).toBe(true);
    const backwards = evaluateLicense({
      proof,
      keys,
      now: new Date('2026-05-20T00:00:00Z'),
      clock: first.clock,
    });
    expect(backwards).toMatchObject({ valid: false, reason: 'CLOCK_TAMPERED' });
    // before the server's own signing time
    const early = evaluateLicense({ proof, keys, now: new Date('2026-04-01T00:00:00Z') });
    expect(early).toMatchObject({ valid: false });
    expect(checkClock(first.clock, { serverTime: NOW.toISOString(), counter: 3 }, NOW)).toMatchObject({
      ok: false,
      reason: 'REPLAYED_DOCUMENT',
    });
    expect(
      checkClock(first.clock, { serverTime: NOW.toISOString(), counter: 11 }, new Date(NOW.getTime() + 1000))
        .ok,
    ).toBe(true);
  });
});

describe('license keys and features', () => {
  it('generates keys with a prefix and a check code that catches typos', () => {
    const licenseKey = generateLicenseKey();
    expect(licenseKey).toMatch(/^ARB-[0-9A-Z]{5}(-[0-9A-Z]{5}){3}-[0-9A-Z]{2}$/);
    expect(checkLicenseKey(licenseKey)).toEqual({ ok: true, licenseKey });
    expect(checkLicenseKey(licenseKey.toLowerCase())).toEqual({ ok: true, licenseKey });
    let caught = 0;
    const alphabet = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
    for (let i = 4; i < 27; i++) {
      if (licenseKey[i] === '-') continue;
      const replaced = alphabet[(alphabet.indexOf(licenseKey[i]) + 7) % 32];
      const typo = licenseKey.slice(0, i) + replaced + licenseKey.slice(i + 1);
      if (!checkLicenseKey(typo).ok) caught++;
    }
    expect(caught).toBeGreaterThanOrEqual(19); // 20 single-character typos in the body; 1/1024 may slip
    expect(checkLicenseKey('not a key')).toEqual({ ok: false, reason: 'FORMAT' });
    expect(checkLicenseKey(42)).toEqual({ ok: false, reason: 'FORMAT' });
  });

  it('defaults and updates features', () => {
    expect(DEFAULT_FEATURES_BY_TIER.Enterprise).toEqual(['*']);
    expect(DEFAULT_FEATURES_BY_TIER.Free).toEqual(['api.validate']);
    expect(updateFeatures(['a', 'b'], ['c', 'a'], ['b'])).toEqual(['a', 'c']);
  });
});
