import {
  ActivationProofPayload,
  canonicalJson,
  encodeDocument,
  hasFeature,
  HEARTBEAT_TYPE,
  HeartbeatAnswerPayload,
  LicenseKeySet,
  licenseKeyHint,
  PROOF_TYPE,
  verifyDocument,
} from '@arbiter/licensing';
import { AppError, Database, UnitOfWork } from '@arbiter/platform';
import { Inject, Injectable } from '@nestjs/common';
import { createHash, randomUUID } from 'node:crypto';
import { LicenseServerSettings } from '../settings';
import type {
  ActivateDto,
  ActivationView,
  HeartbeatDto,
  HeartbeatView,
  ValidateDto,
  ValidateView,
} from './dto';
import { HeartbeatWriter } from './heartbeat-writer';
import { LicenseErrors } from './license-errors';
import { hashNonce, newNonce } from './nonces';
import { wellFormedKey } from './license-key-input';
import { LicenseSigner } from './license-signer';
import { LICENSE_RECORD_TYPE } from './manage-licenses';
import { ActivationRepository } from './persistence/activation.repository';
import { LicenseKeyRepository } from './persistence/license-key.repository';
import { AssemblyApprovalRepository } from './persistence/license-store.repository';
import { UsageRecorder } from './usage-recorder';
import { CachedValidation, ValidationCache } from './validation-cache';

/**
 * `POST /api/v1/activate`: a signed proof for a machine. The key row is locked for the transaction, so
 * activations of one key run one after the other and `maxActivations` holds under any concurrency (a
 * machine already activated re-activates without taking another slot).
 */
@Injectable()
export class ActivateLicense {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly licenses: LicenseKeyRepository,
    private readonly activations: ActivationRepository,
    private readonly approvals: AssemblyApprovalRepository,
    private readonly signer: LicenseSigner,
    private readonly cache: ValidationCache,
    @Inject(LicenseServerSettings) private readonly settings: LicenseServerSettings,
  ) {}

  /** the published keys as a verifying set, rebuilt when the signer publishes another set (a rotation) */
  private keySet: { jwks: unknown; set: LicenseKeySet } | null = null;

  /**
   * `LicenseConfigs:RequireSignedPolicy`: the license's signed policy (its `signedPayload` from generate)
   * is mandatory; a policy presented is always verified (a credential that fails is 401, setting or not).
   * Returns the license id the policy was issued for, or null when none was given (and none is required).
   */
  private verifiedPolicy(dto: ActivateDto): string | null {
    if (dto.signedPolicy === undefined || dto.signedPolicy === '') {
      if (this.settings.requireSignedPolicy)
        throw AppError.badRequest(
          LicenseErrors.SignedPolicyRequired,
          "LicenseConfigs:RequireSignedPolicy is on: send the license's signed policy (the signedPayload issued with the key) as signedPolicy",
        );
      return null;
    }
    const jwks = this.signer.jwks();
    if (this.keySet?.jwks !== jwks) this.keySet = { jwks, set: new LicenseKeySet(jwks) };
    const check = verifyDocument<{ typ: string; licenseId?: unknown }>(
      dto.signedPolicy,
      this.keySet.set,
      LICENSE_RECORD_TYPE,
    );
    if (!check.ok)
      throw AppError.unauthorized(
        `The signed policy fails verification (${check.reason})`,
        LicenseErrors.SignedPolicyInvalid,
      );
    if (typeof check.payload.licenseId !== 'string')
      throw AppError.unauthorized('The signed policy names no license', LicenseErrors.SignedPolicyInvalid);
    return check.payload.licenseId;
  }

  async execute(dto: ActivateDto): Promise<ActivationView> {
    const policyLicenseId = this.verifiedPolicy(dto);
    const key = wellFormedKey(dto.licenseKey);
    const manifest = (dto.assemblyManifest ?? []).map((e) => ({
      assemblyName: e.assemblyName,
      version: e.version,
      sha256Hash: e.sha256Hash.toLowerCase(),
      publicKeyToken: e.publicKeyToken ?? null,
    }));
    manifest.sort((a, b) => (a.sha256Hash < b.sha256Hash ? -1 : a.sha256Hash > b.sha256Hash ? 1 : 0));
    const manifestHash = manifest.length
      ? createHash('sha256').update(canonicalJson(manifest)).digest('hex')
      : null;
    const scope = this.settings.fingerprintScope === 'ProjectOnly' ? 'ProjectOnly' : 'MachineAndProject';
    const proof = await this.uow.run(async (m) => {
      const license = await this.licenses.byKeyForUpdate(m, key);
      if (!license) throw AppError.notFound(LicenseErrors.LicenseNotFound, 'No license with this key');
      if (policyLicenseId !== null && policyLicenseId !== license.id)
        throw AppError.unauthorized(
          'The signed policy is the record of another license',
          LicenseErrors.SignedPolicyInvalid,
        );
      if (license.is_revoked)
        throw AppError.forbidden('The license is revoked', LicenseErrors.LicenseRevoked);
      const clock = await this.signer.clock(m);
      if (new Date(license.expires_at).getTime() <= Date.parse(clock.serverTime)) {
        throw AppError.forbidden('The license has expired', LicenseErrors.LicenseExpired);
      }
      if (manifest.length) {
        const approved = await this.approvals.approved(m, license.id, [
          ...new Set(manifest.map((e) => e.sha256Hash)),
        ]);
        const missing = manifest.filter((e) => !approved.has(e.sha256Hash));
        if (missing.length) {
          throw AppError.forbidden(
            `Not approved for this license: ${missing.map((e) => `${e.assemblyName} ${e.version} (${e.sha256Hash.slice(0, 12)}…)`).join(', ')}`,
            LicenseErrors.ManifestNotApproved,
          );
        }
      }
      const existing = await this.activations.byMachine(m, license.id, dto.machineFingerprint);
      if (existing && existing.environment !== dto.environment) {
        throw AppError.conflict(
          LicenseErrors.ActivationBindingMismatch,
          `This machine is activated for the environment '${existing.environment}'`,
        );
      }
      if (!existing && (await this.activations.count(m, license.id)) >= license.max_activations) {
        throw AppError.conflict(
          LicenseErrors.ActivationLimitReached,
          `All ${license.max_activations} activations of this license are in use`,
        );
      }
      const proofId = randomUUID();
      const activationId = existing?.id ?? randomUUID();
      if (existing) {
        await this.activations.reissue(m, existing.id, {
          product_version: dto.productVersion,
          manifest_hash: manifestHash,
          proof_id: proofId,
          signing_key_id: this.signer.kid,
        });
      } else {
        await this.activations.insert(m, {
          id: activationId,
          license_id: license.id,
          machine_fingerprint: dto.machineFingerprint,
          environment: dto.environment,
          product_version: dto.productVersion,
          manifest_hash: manifestHash,
          proof_id: proofId,
          signing_key_id: this.signer.kid,
        });
      }
      const nonce = newNonce();
      await this.activations.issueNonce(m, activationId, hashNonce(nonce));
      const payload: ActivationProofPayload = {
        typ: PROOF_TYPE,
        proofId,
        licenseId: license.id,
        licenseKeyHint: licenseKeyHint(license.license_key),
        organizationId: license.organization_id,
        organizationName: license.organization_name,
        tier: license.tier,
        allowedFeatures: license.allowed_features,
        machineFingerprint: dto.machineFingerprint,
        fingerprintScope: scope,
        environment: dto.environment,
        productVersion: dto.productVersion,
        manifestHash,
        issuedAt: clock.serverTime,
        expiresAt: new Date(license.expires_at).toISOString(),
        nonce,
        ...clock,
      };
      return this.signer.sign(payload);
    });
    await this.cache.changed(key, 'activated');
    return { success: true, proof, activationProof: encodeDocument(proof), message: 'Activated' };
  }
}

/**
 * `POST /api/v1/validate`: is the action allowed for the license on this machine? The license row comes
 * from the validation cache (a read on a miss); the usage metric goes to the recorder (batched, off the
 * request path). Synchronous on a cache hit (no promise: the hot route answers in the same turn).
 */
@Injectable()
export class ValidateLicense {
  constructor(
    private readonly database: Database,
    private readonly activations: ActivationRepository,
    private readonly usage: UsageRecorder,
    private readonly cache: ValidationCache,
    @Inject(LicenseServerSettings) private readonly settings: LicenseServerSettings,
  ) {}

  execute(dto: ValidateDto): ValidateView | Promise<ValidateView> {
    const fingerprint = this.settings.fingerprintScope === 'ProjectOnly' ? null : dto.machineFingerprint;
    // keyed by the key as sent: only a well-formed key is ever stored, so a hit needs no check-code hash
    const cacheKey = ValidationCache.keyOf(dto.licenseKey, fingerprint);
    const cached = this.cache.get(cacheKey);
    if (cached) return this.answer(cached.licenseKey, dto.actionType, cached);
    const key = wellFormedKey(dto.licenseKey);
    return this.cache
      .load(cacheKey, key, () => this.activations.validation(this.database, key, fingerprint))
      .then((read) => this.answer(key, dto.actionType, read));
  }

  private answer(key: string, actionType: string, cached: CachedValidation): ValidateView {
    const row = cached.row;
    let error: string | null = null;
    if (!row) error = LicenseErrors.LicenseNotFound;
    else if (row.is_revoked) error = LicenseErrors.LicenseRevoked;
    else if (cached.expiresMs <= Date.now()) error = LicenseErrors.LicenseExpired;
    else if (!row.activated) error = 'MACHINE_NOT_ACTIVATED';
    else if (!hasFeature(row.allowed_features, actionType)) error = 'FEATURE_NOT_ALLOWED';
    this.usage.record({ licenseKey: key, actionType, isValid: !error, recordedAtMs: Date.now() });
    return {
      isValid: !error,
      tier: row?.tier ?? null,
      allowedFeatures: row?.allowed_features ?? [],
      expiresAt: cached.expiresAt,
      error,
    };
  }
}

/**
 * `POST /api/v1/heartbeat`: spends the server-issued nonce (exactly once, whatever the concurrency) when it
 * belongs to the proof, license and machine named, and answers a signed document with the next nonce;
 * after revocation `isRevoked` with the grace deadline. One statement does the whole write (spend, next
 * nonce, last heartbeat, clock and counter: `ActivationRepository.heartbeats`), in autocommit, shared
 * with the heartbeats arriving at the same time (group commit: `HeartbeatWriter`): the license tables
 * carry no tenant (no row-level security context to set), and a round trip per batch is what lets a
 * replica answer thousands of heartbeats a second. A mismatch spends nothing: the nonce stays usable by its
 * holder. The answer is signed with the Ed25519 key (cheap per call; see `LicenseSigner`).
 */
@Injectable()
export class Heartbeat {
  constructor(
    private readonly writer: HeartbeatWriter,
    private readonly signer: LicenseSigner,
  ) {}

  async execute(dto: HeartbeatDto): Promise<HeartbeatView> {
    const nonce = newNonce();
    const nonceHash = hashNonce(dto.nonce);
    const target = await this.writer.write({
      nonceHash,
      proofId: dto.proofId,
      licenseId: dto.licenseId,
      fingerprint: dto.machineFingerprint,
      nextHash: hashNonce(nonce),
    });
    if (target === 'mismatch')
      throw AppError.forbidden(
        'The nonce belongs to another proof, license or machine',
        LicenseErrors.HeartbeatMismatch,
      );
    if (!target) throw AppError.conflict(LicenseErrors.NonceInvalid, 'Unknown or already used nonce');
    const payload: HeartbeatAnswerPayload = {
      typ: HEARTBEAT_TYPE,
      proofId: target.proof_id,
      licenseId: target.license_id,
      machineFingerprint: target.machine_fingerprint,
      previousNonce: dto.nonce,
      nonce,
      isRevoked: target.is_revoked,
      graceDeadline:
        target.is_revoked && target.grace_deadline ? new Date(target.grace_deadline).toISOString() : null,
      serverTime: new Date(target.server_time).toISOString(),
      counter: Number(target.counter),
    };
    const answer = this.signer.signAnswer(payload);
    return {
      success: true,
      isRevoked: payload.isRevoked,
      graceDeadline: payload.graceDeadline,
      nonce,
      serverTime: payload.serverTime,
      counter: payload.counter,
      heartbeat: answer,
      signedHeartbeat: encodeDocument(answer),
    };
  }
}
