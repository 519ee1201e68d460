import {
  evaluateLicense,
  LicenseKeySet,
  privateKeyFromPem,
  signDocument,
  verifyActivationProof,
  verifyHeartbeatAnswer,
  verifyRevocationSnapshot,
} from '@arbiter/licensing';
import { EventBus, UnitOfWork } from '@arbiter/platform';
import { startServiceForTest, ServiceUnderTest } from '@arbiter/testing';
import { identityService } from '../src';
import { LicenseSigner, UsageRecorder } from '../src/license';
import { ActivationRepository } from '../src/license/persistence/activation.repository';
import { call } from './helpers';

const ADMIN_KEY = 'test-admin-key-0123456789';
const admin = { 'x-admin-api-key': ADMIN_KEY };
const HASH_A = 'a'.repeat(64);
const HASH_B = 'b'.repeat(64);

describe('license server', () => {
  let sut: ServiceUnderTest;
  let base: string;
  beforeAll(async () => {
    sut = await startServiceForTest(identityService, 'ConnectionStrings:LicenseDb', {
      overrides: { 'LicenseServer:AdminApiKey': ADMIN_KEY, 'LicenseServer:RevocationGraceHours': 2 },
    });
    base = sut.url;
  }, 120_000);
  afterAll(() => sut?.stop());

  async function generate(body: Record<string, unknown> = {}) {
    const res = await call(base, 'POST', '/api/v1/keys/generate', {
      headers: admin,
      body: {
        organizationId: 'org-1',
        organizationName: 'Acme',
        tier: 'Licensed',
        validDays: 30,
        maxActivations: 5,
        ...body,
      },
    });
    expect(res.status).toBe(200);
    return res.body.result as {
      licenseKey: string;
      licenseId: string;
      expiresAt: string;
      signingKeyId: string;
      signedPayload: string;
    };
  }

  async function activate(
    licenseKey: string,
    machineFingerprint: string,
    extra: Record<string, unknown> = {},
  ) {
    return call(base, 'POST', '/api/v1/activate', {
      body: { licenseKey, machineFingerprint, productVersion: '2.4.0', environment: 'Production', ...extra },
    });
  }

  async function keySet() {
    const res = await call(base, 'GET', '/api/v1/license/keys');
    expect(res.status).toBe(200);
    return new LicenseKeySet(res.body);
  }

  it('generates keys with tier defaults and a signed record', async () => {
    const free = await generate({ tier: 'Free' });
    expect(free.licenseKey).toMatch(/^ARB-[0-9A-Z]{5}(-[0-9A-Z]{5}){3}-[0-9A-Z]{2}$/);
    expect(free.signingKeyId).toMatch(/^lic-/);
    const record = JSON.parse(Buffer.from(free.signedPayload, 'base64').toString());
    expect(record.payload).toMatchObject({
      typ: 'arbiter.license.key',
      tier: 'Free',
      allowedFeatures: ['api.validate'],
    });
    expect(record.kid).toBe(free.signingKeyId);
    const licensed = await generate();
    const enterprise = await generate({ tier: 'Enterprise' });
    const custom = await generate({ allowedFeatures: ['pdf.canary'] });
    for (const [key, features] of [
      [licensed, ['vsix.publish', 'vsix.watch', 'vsix.explorer', 'api.validate', 'cp.publish']],
      [enterprise, ['*']],
      [custom, ['pdf.canary']],
    ] as const) {
      const a = await activate(key.licenseKey, 'm-defaults');
      expect(a.body.result.proof.payload.allowedFeatures).toEqual(features);
    }
    const bad = await call(base, 'POST', '/api/v1/keys/generate', {
      headers: admin,
      body: { organizationId: 'o', organizationName: 'O', tier: 'Gold', validDays: 0, maxActivations: 1 },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0].code).toBe('VALIDATION_FAILED');
  });

  it('refuses admin routes without the right key (401, never 500), and 1,000 wrong keys do not slow others', async () => {
    const variants: Record<string, string>[] = [
      {},
      { 'x-admin-api-key': 'wrong' },
      { 'x-admin-api-key': ADMIN_KEY + 'x' },
    ];
    for (const headers of variants) {
      const res = await call(base, 'POST', '/api/v1/keys/generate', {
        headers,
        body: { organizationId: 'o', organizationName: 'O', tier: 'Free', validDays: 1, maxActivations: 1 },
      });
      expect(res.status).toBe(401);
      expect(res.body).toMatchObject({ isSuccess: false, errors: [{ code: 'ADMIN_KEY_INVALID' }] });
    }
    for (const path of ['/api/v1/keys/revoke', '/api/v1/keys/rotate', '/api/v1/assembly-whitelist/approve']) {
      expect((await call(base, 'POST', path, { body: {} })).status).toBe(401);
    }
    // 1,000 wrong keys (20 waves of 50): every one a 401; meanwhile a runtime's call is served promptly,
    // and afterwards the right key works at once (no lockout an attacker could trigger for the admin)
    let wrongStatuses: number[] = [];
    const attack = (async () => {
      for (let wave = 0; wave < 20; wave++) {
        const answers = await Promise.all(
          Array.from({ length: 50 }, (_, i) =>
            call(base, 'POST', '/api/v1/keys/rotate', {
              headers: { 'x-admin-api-key': `guess-${wave}-${i}` },
            }),
          ),
        );
        wrongStatuses = wrongStatuses.concat(answers.map((r) => r.status));
      }
    })();
    const latencies: number[] = [];
    while (wrongStatuses.length < 1000) {
      const t0 = Date.now();
      const other = await call(base, 'GET', '/api/v1/revocation/list');
      expect(other.status).toBe(200);
      latencies.push(Date.now() - t0);
      await new Promise((r) => setTimeout(r, 50));
    }
    await attack;
    expect(wrongStatuses).toHaveLength(1000);
    expect(new Set(wrongStatuses)).toEqual(new Set([401]));
    latencies.sort((a, b) => a - b);
    expect(latencies[Math.floor(latencies.length / 2)]).toBeLessThan(1000);
    const right = await call(base, 'POST', '/api/v1/keys/generate', {
      headers: admin,
      body: { organizationId: 'o', organizationName: 'O', tier: 'Free', validDays: 1, maxActivations: 1 },
    });
    expect(right.status).toBe(200);
  });

  it('activates with a verifiable proof; validate records usage; features change only after re-activation', async () => {
    const key = await generate({ allowedFeatures: ['api.validate', 'pdf.designer'] });
    const res = await activate(key.licenseKey, 'machine-1');
    expect(res.status).toBe(200);
    expect(res.body.result).toMatchObject({ success: true, message: 'Activated', proof: { alg: 'PS256' } });
    const keys = await keySet();
    const decoded = JSON.parse(Buffer.from(res.body.result.activationProof, 'base64').toString());
    expect(decoded).toEqual(res.body.result.proof);
    const verified = verifyActivationProof(res.body.result.activationProof, keys, {
      machineFingerprint: 'machine-1',
    });
    expect(verified).toMatchObject({ valid: true });
    if (!verified.valid) return;
    expect(verified.payload).toMatchObject({
      licenseId: key.licenseId,
      tier: 'Licensed',
      allowedFeatures: ['api.validate', 'pdf.designer'],
      machineFingerprint: 'machine-1',
      environment: 'Production',
      productVersion: '2.4.0',
      fingerprintScope: 'MachineAndProject',
      counter: expect.any(Number),
      serverTime: expect.any(String),
    });

    const validate = (actionType: string, machineFingerprint = 'machine-1', licenseKey = key.licenseKey) =>
      call(base, 'POST', '/api/v1/validate', { body: { licenseKey, machineFingerprint, actionType } });
    expect((await validate('api.validate')).body.result).toEqual({
      isValid: true,
      tier: 'Licensed',
      allowedFeatures: ['api.validate', 'pdf.designer'],
      expiresAt: key.expiresAt,
      error: null,
    });
    expect((await validate('pdf.canary')).body.result).toMatchObject({
      isValid: false,
      error: 'FEATURE_NOT_ALLOWED',
    });
    expect((await validate('api.validate', 'machine-2')).body.result).toMatchObject({
      isValid: false,
      error: 'MACHINE_NOT_ACTIVATED',
    });
    const typo =
      key.licenseKey.slice(0, 4) + (key.licenseKey[4] === 'A' ? 'B' : 'A') + key.licenseKey.slice(5);
    const malformed = await validate('api.validate', 'machine-1', typo);
    expect(malformed.status).toBe(400);
    expect(malformed.body.errors[0].code).toBe('LICENSE_KEY_MALFORMED');
    // an action type with the characters an array literal escapes is recorded as sent
    const odd = 'say "hi" \\ {x,y} NULL';
    expect((await validate(odd)).body.result).toMatchObject({ isValid: false, error: 'FEATURE_NOT_ALLOWED' });

    // usage metrics: one row per validate call, written in a batch off the request path
    await sut.service.app.get(UsageRecorder).flush();
    const rows = await sut.service.app
      .get(UnitOfWork)
      .run((m) =>
        m.query(
          `SELECT action_type, is_valid FROM license_usage_metrics WHERE license_key = $1 ORDER BY id`,
          [key.licenseKey],
        ),
      );
    expect(rows).toEqual([
      { action_type: 'api.validate', is_valid: true },
      { action_type: 'pdf.canary', is_valid: false },
      { action_type: 'api.validate', is_valid: false },
      { action_type: odd, is_valid: false },
    ]);
    const [{ age }] = await sut.service.app
      .get(UnitOfWork)
      .run((m) =>
        m.query(
          `SELECT extract(epoch FROM now() - max(recorded_at)) AS age FROM license_usage_metrics WHERE license_key = $1`,
          [key.licenseKey],
        ),
      );
    expect(Math.abs(Number(age))).toBeLessThan(60);

    // feature update: atomic add + remove; the held proof is unchanged until re-activation
    const update = await call(base, 'POST', `/api/v1/keys/${key.licenseKey}/features`, {
      headers: admin,
      body: { add: ['pdf.canary', 'pdf.registry'], remove: ['pdf.designer'] },
    });
    expect(update.body.errors).toEqual([]);
    expect(update.status).toBe(200);
    expect(update.body.result).toEqual({
      licenseKey: key.licenseKey,
      allowedFeatures: ['api.validate', 'pdf.canary', 'pdf.registry'],
    });
    expect(verifyActivationProof(res.body.result.proof, keys)).toMatchObject({
      valid: true,
      payload: { allowedFeatures: ['api.validate', 'pdf.designer'] },
    });
    const again = await activate(key.licenseKey, 'machine-1');
    expect(again.body.result.proof.payload.allowedFeatures).toEqual([
      'api.validate',
      'pdf.canary',
      'pdf.registry',
    ]);
    expect(
      (await call(base, 'POST', `/api/v1/keys/${key.licenseKey}/features`, { headers: admin, body: {} })).body
        .errors[0].code,
    ).toBe('FEATURE_UPDATE_EMPTY');
    expect(
      (
        await call(base, 'POST', `/api/v1/keys/${key.licenseKey}/features`, {
          headers: admin,
          body: { add: ['bad key!'] },
        })
      ).status,
    ).toBe(400);
    const unknown = await generate();
    const other = unknown.licenseKey; // a real, well-formed key...
    await call(base, 'POST', '/api/v1/keys/revoke', {
      headers: admin,
      body: { licenseKey: other, reason: 'x' },
    });
    // ...and a well-formed key nobody issued: 404
    const { generateLicenseKey } = await import('@arbiter/licensing');
    const missing = await call(base, 'POST', `/api/v1/keys/${generateLicenseKey()}/features`, {
      headers: admin,
      body: { add: ['pdf.canary'] },
    });
    expect(missing.status).toBe(404);
    expect(missing.body.errors[0].code).toBe('LICENSE_NOT_FOUND');
    // a machine re-activating in another environment is a binding mismatch
    const mismatch = await activate(key.licenseKey, 'machine-1', { environment: 'Staging' });
    expect(mismatch.status).toBe(409);
    expect(mismatch.body.errors[0].code).toBe('ACTIVATION_BINDING_MISMATCH');
  });

  it('100 parallel activations with maxActivations 5: exactly 5 succeed', async () => {
    const key = await generate({ maxActivations: 5 });
    const results = await Promise.all(
      Array.from({ length: 100 }, (_, i) => activate(key.licenseKey, `par-${i}`)),
    );
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(5);
    expect(statuses.filter((s) => s === 409)).toHaveLength(95);
    expect(results.find((r) => r.status === 409)!.body.errors[0].code).toBe('ACTIVATION_LIMIT_REACHED');
    // a machine already activated re-activates without a new slot
    const winner = results.findIndex((r) => r.status === 200);
    expect((await activate(key.licenseKey, `par-${winner}`)).status).toBe(200);
  });

  it('heartbeats: server nonces are single use (50 parallel: one wins), mismatches are refused, revocation has a grace deadline', async () => {
    const key = await generate();
    const activation = (await activate(key.licenseKey, 'hb-machine')).body.result;
    const proof = activation.proof.payload;
    const body = {
      proofId: proof.proofId,
      licenseId: proof.licenseId,
      machineFingerprint: 'hb-machine',
      nonce: proof.nonce,
    };
    // a mismatch is refused and does not spend the nonce
    const wrongMachine = await call(base, 'POST', '/api/v1/heartbeat', {
      body: { ...body, machineFingerprint: 'other' },
    });
    expect(wrongMachine.status).toBe(403);
    expect(wrongMachine.body.errors[0].code).toBe('HEARTBEAT_MISMATCH');
    const results = await Promise.all(
      Array.from({ length: 50 }, () => call(base, 'POST', '/api/v1/heartbeat', { body })),
    );
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    expect(results.filter((r) => r.status === 409)).toHaveLength(49);
    expect(results.find((r) => r.status === 409)!.body.errors[0].code).toBe('NONCE_INVALID');
    const answer = results.find((r) => r.status === 200)!.body.result;
    expect(answer).toMatchObject({
      success: true,
      isRevoked: false,
      graceDeadline: null,
      nonce: expect.any(String),
    });
    const keys = await keySet();
    const hb = verifyHeartbeatAnswer(answer.signedHeartbeat, keys, proof);
    expect(hb).toMatchObject({ valid: true, payload: { previousNonce: proof.nonce, nonce: answer.nonce } });
    expect(answer.counter).toBeGreaterThan(proof.counter);

    // revoke: the next heartbeat says so, with the grace deadline (RevocationGraceHours = 2)
    const revoked = await call(base, 'POST', '/api/v1/keys/revoke', {
      headers: admin,
      body: { licenseKey: key.licenseKey, reason: 'contract ended' },
    });
    expect(revoked.body.errors).toEqual([]);
    expect(revoked.status).toBe(200);
    const deadline = Date.parse(revoked.body.result.graceDeadline);
    expect(deadline - Date.parse(revoked.body.result.revokedAt)).toBe(2 * 3600_000);
    const next = await call(base, 'POST', '/api/v1/heartbeat', { body: { ...body, nonce: answer.nonce } });
    expect(next.status).toBe(200);
    expect(next.body.result).toMatchObject({
      isRevoked: true,
      graceDeadline: revoked.body.result.graceDeadline,
    });
    const hb2 = verifyHeartbeatAnswer(next.body.result.heartbeat, keys, proof);
    if (!hb2.valid) throw new Error(hb2.message);
    // the runtime library: valid during the grace period, refused after it
    const during = evaluateLicense({ proof: activation.proof, keys, heartbeat: hb2.payload });
    expect(during).toMatchObject({ valid: true, graceDeadline: revoked.body.result.graceDeadline });
    const after = evaluateLicense({
      proof: activation.proof,
      keys,
      heartbeat: hb2.payload,
      now: new Date(deadline + 1000),
    });
    expect(after).toMatchObject({ valid: false, reason: 'REVOKED' });
    // the snapshot lists it, signed, with a sequence that grew; an older snapshot is refused
    const before = (await call(base, 'GET', '/api/v1/revocation/list')).body.result;
    expect(before.snapshot.payload.revoked).toContainEqual(
      expect.objectContaining({ licenseId: key.licenseId, reason: 'contract ended' }),
    );
    expect(verifyRevocationSnapshot(before.signedSnapshot, keys)).toMatchObject({ valid: true });
    const later = await generate();
    await call(base, 'POST', '/api/v1/keys/revoke', {
      headers: admin,
      body: { licenseKey: later.licenseKey, reason: 'x' },
    });
    const newer = (await call(base, 'GET', '/api/v1/revocation/list')).body.result;
    expect(newer.sequence).toBeGreaterThan(before.sequence);
    expect(verifyRevocationSnapshot(before.snapshot, keys, { lastSequence: newer.sequence })).toMatchObject({
      valid: false,
      reason: 'STALE_SEQUENCE',
    });
    // a revoked license does not activate
    const refused = await activate(key.licenseKey, 'new-machine');
    expect(refused.status).toBe(403);
    expect(refused.body.errors[0].code).toBe('LICENSE_REVOKED');
    expect(
      (
        await call(base, 'POST', '/api/v1/keys/revoke', {
          headers: admin,
          body: { licenseKey: 'nope', reason: 'x' },
        })
      ).status,
    ).toBe(400);
  });

  it('heartbeats in one batch: distinct nonces all succeed with their own counter, a repeated nonce wins once, a mismatch beside them is refused, a failed statement fails only its callers', async () => {
    const key = await generate({ maxActivations: 40 });
    const machines = Array.from({ length: 30 }, (_, i) => `batch-machine-${i}`);
    const proofs: { proofId: string; licenseId: string; machineFingerprint: string; nonce: string }[] = [];
    for (const machine of machines)
      proofs.push((await activate(key.licenseKey, machine)).body.result.proof.payload);
    const bodyOf = (p: (typeof proofs)[number], nonce: string = p.nonce) => ({
      proofId: p.proofId,
      licenseId: p.licenseId,
      machineFingerprint: p.machineFingerprint,
      nonce,
    });
    const statements = jest.spyOn(sut.service.app.get(ActivationRepository), 'heartbeats');
    try {
      // 30 chains, 5 rounds each, all in parallel: every call succeeds (batches carry distinct nonces)
      const counters: number[] = [];
      await Promise.all(
        proofs.map(async (p) => {
          let nonce = p.nonce;
          for (let round = 0; round < 5; round++) {
            const res = await call(base, 'POST', '/api/v1/heartbeat', { body: bodyOf(p, nonce) });
            expect(res.status).toBe(200);
            expect(res.body.result.heartbeat.payload).toMatchObject({
              proofId: p.proofId,
              previousNonce: nonce,
            });
            counters.push(res.body.result.counter);
            nonce = res.body.result.nonce;
          }
          p.nonce = nonce;
        }),
      );
      expect(new Set(counters).size).toBe(150);
      const sizes = statements.mock.calls.map(([, spends]) => spends.length);
      expect(sizes.reduce((a, b) => a + b, 0)).toBe(150);
      expect(Math.max(...sizes)).toBeGreaterThan(1); // they were batched
      statements.mockClear();

      // in one turn: 10 valid distinct nonces, the same nonce 20 times, 5 mismatches of valid nonces
      const [dup, ...others] = proofs;
      const mixed = await Promise.all([
        ...others.slice(0, 10).map((p) => call(base, 'POST', '/api/v1/heartbeat', { body: bodyOf(p) })),
        ...Array.from({ length: 20 }, () => call(base, 'POST', '/api/v1/heartbeat', { body: bodyOf(dup) })),
        ...others.slice(10, 15).map((p) =>
          call(base, 'POST', '/api/v1/heartbeat', {
            body: { ...bodyOf(p), machineFingerprint: 'someone-else' },
          }),
        ),
      ]);
      expect(mixed.slice(0, 10).map((r) => r.status)).toEqual(Array(10).fill(200));
      const repeated = mixed.slice(10, 30);
      expect(repeated.filter((r) => r.status === 200)).toHaveLength(1);
      expect(
        repeated.filter((r) => r.status === 409 && r.body.errors[0].code === 'NONCE_INVALID'),
      ).toHaveLength(19);
      for (const r of mixed.slice(30)) {
        expect(r.status).toBe(403);
        expect(r.body.errors[0].code).toBe('HEARTBEAT_MISMATCH');
      }
      expect(Math.max(...statements.mock.calls.map(([, spends]) => spends.length))).toBeGreaterThan(1);
      // a mismatch spends nothing: the rightful holders still heartbeat with those nonces
      for (const p of others.slice(10, 15))
        expect((await call(base, 'POST', '/api/v1/heartbeat', { body: bodyOf(p) })).status).toBe(200);

      // a statement that fails: its callers get the error (500 INTERNAL), nothing hangs, nothing is spent;
      // the next statement runs as usual and the same nonces work
      statements.mockRejectedValueOnce(new Error('connection lost'));
      const victims = others.slice(15, 20);
      const failed = await Promise.all(
        victims.map((p) => call(base, 'POST', '/api/v1/heartbeat', { body: bodyOf(p) })),
      );
      expect(failed.map((r) => r.status)).toContain(500);
      for (const [i, r] of failed.entries()) {
        if (r.status === 500) continue;
        expect(r.status).toBe(200); // a call that did not ride in the failed statement
        victims[i].nonce = r.body.result.nonce;
      }
      const retried = await Promise.all(
        victims.map((p) => call(base, 'POST', '/api/v1/heartbeat', { body: bodyOf(p) })),
      );
      expect(retried.map((r) => r.status)).toEqual(Array(5).fill(200));
    } finally {
      statements.mockRestore();
    }
  });

  it('validate and heartbeat (hot routes): bad bodies get the validation errors; the cache follows changes other replicas publish', async () => {
    const key = await generate({ allowedFeatures: ['api.validate'] });
    expect((await activate(key.licenseKey, 'hot-1')).status).toBe(200);
    const validate = (body: unknown) => call(base, 'POST', '/api/v1/validate', { body });
    const good = { licenseKey: key.licenseKey, machineFingerprint: 'hot-1', actionType: 'api.validate' };
    expect((await validate(good)).body.result).toMatchObject({ isValid: true, error: null });
    // what the plain check does not take goes through the validation pipe of every Nest route
    for (const body of [
      { ...good, licenseKey: 42 },
      { ...good, machineFingerprint: 'has spaces' },
      { ...good, actionType: '' },
      { licenseKey: key.licenseKey },
      [good],
    ]) {
      const res = await validate(body);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ isSuccess: false, result: null });
      expect(res.body.errors[0].code).toBe('VALIDATION_FAILED');
    }
    const nul = await validate({ ...good, actionType: 'api\u0000validate' });
    expect(nul.status).toBe(400);
    expect(nul.body.errors[0].code).toBe('INVALID_CHARACTERS');
    // a body the plain check leaves to the pipe but the DTO accepts (an unknown key is stripped) is answered
    expect((await validate({ ...good, extra: 1 })).body.result).toMatchObject({ isValid: true });
    const heartbeat = await call(base, 'POST', '/api/v1/heartbeat', {
      body: {
        proofId: 'not-a-uuid',
        licenseId: key.licenseId,
        machineFingerprint: 'hot-1',
        nonce: 'x'.repeat(20),
      },
    });
    expect(heartbeat.status).toBe(400);
    expect(heartbeat.body.errors[0].code).toBe('VALIDATION_FAILED');

    // another replica revokes (here: the row changed behind this replica's back) and publishes the change;
    // a fresh license, so its read is cached just before (the entry lives 1 s with the in-process bus)
    const other = await generate({ allowedFeatures: ['api.validate'] });
    expect((await activate(other.licenseKey, 'hot-2')).status).toBe(200);
    const otherGood = {
      licenseKey: other.licenseKey,
      machineFingerprint: 'hot-2',
      actionType: 'api.validate',
    };
    expect((await validate(otherGood)).body.result).toMatchObject({ isValid: true });
    await sut.service.app
      .get(UnitOfWork)
      .run((m) => m.query(`UPDATE license_keys SET is_revoked = true WHERE id = $1`, [other.licenseId]));
    expect((await validate(otherGood)).body.result).toMatchObject({ isValid: true }); // still the cached read
    await sut.service.app.get(EventBus).publish('arbiter.license.changed', {
      licenseKey: other.licenseKey,
      change: 'revoked',
      occurredAt: new Date().toISOString(),
    });
    // in process the event arrives at once; over NATS within a few seconds (an entry lives 10 s there,
    // so the expiry cannot be what answers)
    const deadline = Date.now() + (process.env.TEST_NATS_URL ? 3000 : 50);
    let answer = (await validate(otherGood)).body.result;
    while (answer.isValid && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 25));
      answer = (await validate(otherGood)).body.result;
    }
    expect(answer).toMatchObject({ isValid: false, error: 'LICENSE_REVOKED' });
  });

  it('tampered proofs and proofs of unknown keys fail verification', async () => {
    const key = await generate();
    const proof = (await activate(key.licenseKey, 'tamper')).body.result.proof;
    const keys = await keySet();
    const tampered = { ...proof, payload: { ...proof.payload, tier: 'Enterprise', allowedFeatures: ['*'] } };
    expect(verifyActivationProof(tampered, keys)).toMatchObject({ valid: false, reason: 'BAD_SIGNATURE' });
    expect(verifyActivationProof({ ...proof, kid: 'lic-unknown' }, keys)).toMatchObject({
      valid: false,
      reason: 'UNKNOWN_KEY',
    });
  });

  it('a manifest approved for license X does not activate license Y; an unapproved hash fails; a global approval works', async () => {
    const x = await generate();
    const y = await generate();
    const entry = (sha256Hash: string) => ({
      assemblyName: 'Acme.Fork',
      version: '1.0.0',
      sha256Hash,
      publicKeyToken: null,
    });
    const approve = (body: Record<string, unknown>) =>
      call(base, 'POST', '/api/v1/assembly-whitelist/approve', {
        headers: admin,
        body: { assemblyName: 'Acme.Fork', version: '1.0.0', source: 'ci', publicKeyToken: null, ...body },
      });
    const approved = await approve({ sha256Hash: HASH_A, approvalScope: 'License', licenseId: x.licenseId });
    expect(approved.status).toBe(200);
    expect(approved.body.result).toMatchObject({
      approvalScope: 'License',
      licenseId: x.licenseId,
      sha256Hash: HASH_A,
    });
    expect((await activate(x.licenseKey, 'fork', { assemblyManifest: [entry(HASH_A)] })).status).toBe(200);
    const forY = await activate(y.licenseKey, 'fork', { assemblyManifest: [entry(HASH_A)] });
    expect(forY.status).toBe(403);
    expect(forY.body.errors[0].code).toBe('MANIFEST_NOT_APPROVED');
    const unapproved = await activate(x.licenseKey, 'fork-2', {
      assemblyManifest: [entry(HASH_A), entry(HASH_B)],
    });
    expect(unapproved.status).toBe(403);
    expect((await approve({ sha256Hash: HASH_B, approvalScope: 'Global', licenseId: null })).status).toBe(
      200,
    );
    expect((await activate(y.licenseKey, 'fork', { assemblyManifest: [entry(HASH_B)] })).status).toBe(200);
    expect((await approve({ sha256Hash: HASH_B, approvalScope: 'License' })).body.errors[0].code).toBe(
      'APPROVAL_SCOPE_INVALID',
    );
    expect(
      (await approve({ sha256Hash: HASH_B, approvalScope: 'Global', licenseId: x.licenseId })).status,
    ).toBe(400);
  });

  it('rotation: forced by the admin route, old proofs still verify, new ones carry the new kid; the job rotates once', async () => {
    const key = await generate({ maxActivations: 10 });
    const old = (await activate(key.licenseKey, 'rot-1')).body.result.proof;
    expect(old.alg).toBe('PS256');
    // a proof from before PS256 proofs: signed by the Ed25519 key (which now signs heartbeat answers)
    const [edRow] = await sut.service.app
      .get(UnitOfWork)
      .run((m) =>
        m.query(`SELECT kid, private_pem FROM license_signing_keys WHERE is_active AND alg = 'EdDSA'`),
      );
    const legacy = signDocument({ ...old.payload }, edRow.kid, privateKeyFromPem(edRow.private_pem));
    expect(legacy.alg).toBe('EdDSA');
    const rotated = await call(base, 'POST', '/api/v1/keys/rotate', { headers: admin });
    expect(rotated.status).toBe(200);
    expect(rotated.body.result.previousKid).toBe(old.kid);
    expect(rotated.body.result.rotated).toEqual([
      { alg: 'PS256', kid: rotated.body.result.kid, previousKid: old.kid },
      { alg: 'EdDSA', kid: expect.any(String), previousKid: edRow.kid },
    ]);
    const fresh = (await activate(key.licenseKey, 'rot-2')).body.result.proof;
    expect(fresh.kid).toBe(rotated.body.result.kid);
    expect(fresh.kid).not.toBe(old.kid);
    const keys = await keySet();
    expect(keys.kids).toEqual(expect.arrayContaining([old.kid, fresh.kid]));
    expect(verifyActivationProof(old, keys).valid).toBe(true);
    expect(verifyActivationProof(fresh, keys).valid).toBe(true);
    expect(verifyActivationProof(legacy, keys)).toMatchObject({ valid: true, kid: edRow.kid });
    // the JWKS names every key's algorithm; a document cannot claim another algorithm than its key's
    const published = (await call(base, 'GET', '/api/v1/license/keys')).body.keys;
    expect(published.find((k: { kid: string }) => k.kid === fresh.kid)).toMatchObject({
      kty: 'RSA',
      alg: 'PS256',
    });
    expect(published.find((k: { kid: string }) => k.kid === edRow.kid)).toMatchObject({
      kty: 'OKP',
      alg: 'EdDSA',
    });
    expect(verifyActivationProof({ ...legacy, alg: 'PS256' }, keys)).toMatchObject({
      valid: false,
      reason: 'UNSUPPORTED_ALGORITHM',
    });

    // the rotation job: a fresh key is not rotated; an old one is rotated exactly once by two concurrent runs
    const signer = sut.service.app.get(LicenseSigner);
    expect(await signer.rotateIfDue(1)).toBeNull();
    await sut.service.app
      .get(UnitOfWork)
      .run((m) =>
        m.query(`UPDATE license_signing_keys SET created_at = now() - interval '2 days' WHERE is_active`),
      );
    const runs = await Promise.all([signer.rotateIfDue(1), signer.rotateIfDue(1)]);
    expect(runs.filter((r) => r !== null)).toHaveLength(1);
    const count = await sut.service.app
      .get(UnitOfWork)
      .run((m) => m.query(`SELECT count(*)::int AS n FROM license_signing_keys`));
    expect(count[0].n).toBe(6); // 2 kinds × (first keys, forced rotation, the job's rotation)
  });

  it('verifies a signed policy presented even when none is required (401 for a foreign one)', async () => {
    const mine = await generate();
    const other = await generate();
    const foreign = await activate(mine.licenseKey, 'policy-m1', { signedPolicy: other.signedPayload });
    expect(foreign.status).toBe(401);
    expect(foreign.body.errors[0].code).toBe('SIGNED_POLICY_INVALID');
    expect((await activate(mine.licenseKey, 'policy-m1')).status).toBe(200);
    expect((await activate(mine.licenseKey, 'policy-m2', { signedPolicy: mine.signedPayload })).status).toBe(
      200,
    );
  });
});

describe('LicenseConfigs:RequireSignedPolicy', () => {
  let sut: ServiceUnderTest;
  beforeAll(async () => {
    sut = await startServiceForTest(identityService, 'ConnectionStrings:LicenseDb', {
      overrides: { 'LicenseServer:AdminApiKey': ADMIN_KEY, 'LicenseConfigs:RequireSignedPolicy': true },
    });
  }, 120_000);
  afterAll(() => sut?.stop());

  const generate = async () =>
    (
      await call(sut.url, 'POST', '/api/v1/keys/generate', {
        headers: admin,
        body: {
          organizationId: 'org-p',
          organizationName: 'Acme',
          tier: 'Licensed',
          validDays: 30,
          maxActivations: 5,
        },
      })
    ).body.result as { licenseKey: string; licenseId: string; signedPayload: string };
  const activate = (licenseKey: string, extra: Record<string, unknown> = {}) =>
    call(sut.url, 'POST', '/api/v1/activate', {
      body: {
        licenseKey,
        machineFingerprint: 'm-1',
        productVersion: '2.4.0',
        environment: 'Production',
        ...extra,
      },
    });

  it("activates only with the license's own signed policy; a missing one is 400, a bad or foreign one 401", async () => {
    const mine = await generate();
    const other = await generate();

    const missing = await activate(mine.licenseKey);
    expect(missing.status).toBe(400);
    expect(missing.body.errors[0].code).toBe('SIGNED_POLICY_REQUIRED');

    const record = JSON.parse(Buffer.from(mine.signedPayload, 'base64').toString());
    record.payload.maxActivations = 500; // widened by hand: the signature no longer matches
    const tampered = await activate(mine.licenseKey, {
      signedPolicy: Buffer.from(JSON.stringify(record)).toString('base64'),
    });
    expect(tampered.status).toBe(401);
    expect(tampered.body.errors[0].code).toBe('SIGNED_POLICY_INVALID');

    const foreign = await activate(mine.licenseKey, { signedPolicy: other.signedPayload });
    expect(foreign.status).toBe(401);
    expect(foreign.body.errors[0].code).toBe('SIGNED_POLICY_INVALID');

    const garbage = await activate(mine.licenseKey, { signedPolicy: 'not a policy' });
    expect(garbage.status).toBe(401);

    // nothing above took a slot: the real activation is the first
    const good = await activate(mine.licenseKey, { signedPolicy: mine.signedPayload });
    expect(good.status).toBe(200);
    expect(good.body.result.proof.payload.licenseId).toBe(mine.licenseId);
  });
});
