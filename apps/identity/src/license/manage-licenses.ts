import {
  DEFAULT_FEATURES_BY_TIER,
  encodeDocument,
  generateLicenseKey,
  LicenseTier,
} from '@arbiter/licensing';
import { AppError, UnitOfWork } from '@arbiter/platform';
import { Inject, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { LicenseServerSettings } from '../settings';
import type {
  AssemblyApprovalDto,
  AssemblyApprovalView,
  FeatureUpdateView,
  GenerateKeyDto,
  GenerateKeyView,
  RevokeKeyView,
} from './dto';
import { FEATURE } from './dto';
import { LicenseErrors } from './license-errors';
import { wellFormedKey } from './license-key-input';
import { LicenseSigner } from './license-signer';
import { LicenseKeyRepository } from './persistence/license-key.repository';
import { AssemblyApprovalRepository, RevocationRepository } from './persistence/license-store.repository';
import { RevocationSnapshotCache } from './revocation-snapshot';
import { ValidationCache } from './validation-cache';

export const LICENSE_RECORD_TYPE = 'arbiter.license.key';

function checkFeatures(field: string, features: string[] | undefined): string[] {
  const list = features ?? [];
  const bad = list.filter((f) => !FEATURE.test(f));
  if (bad.length) {
    throw AppError.validation([
      {
        field,
        message: `${bad.map((b) => JSON.stringify(b)).join(', ')}: a feature key is 1-64 of letters, digits, . _ - (or *)`,
      },
    ]);
  }
  return list;
}

/** `POST /api/v1/keys/generate`: a new key, its features defaulting by tier, and its signed record. */
@Injectable()
export class GenerateLicense {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly licenses: LicenseKeyRepository,
    private readonly signer: LicenseSigner,
  ) {}

  async execute(dto: GenerateKeyDto): Promise<GenerateKeyView> {
    const features = dto.allowedFeatures
      ? [...new Set(checkFeatures('allowedFeatures', dto.allowedFeatures))]
      : [...DEFAULT_FEATURES_BY_TIER[dto.tier as LicenseTier]];
    return this.uow.run(async (m) => {
      const clock = await this.signer.clock(m);
      const expiresAt = new Date(Date.parse(clock.serverTime) + dto.validDays * 86_400_000);
      const row = await this.licenses.insert(m, {
        id: randomUUID(),
        license_key: generateLicenseKey(),
        organization_id: dto.organizationId,
        organization_name: dto.organizationName,
        tier: dto.tier,
        valid_days: dto.validDays,
        max_activations: dto.maxActivations,
        allowed_features: features,
        expires_at: expiresAt,
      });
      const record = this.signer.sign({
        typ: LICENSE_RECORD_TYPE,
        licenseId: row.id,
        organizationId: row.organization_id,
        organizationName: row.organization_name,
        tier: row.tier,
        allowedFeatures: row.allowed_features,
        maxActivations: row.max_activations,
        issuedAt: clock.serverTime,
        expiresAt: expiresAt.toISOString(),
        ...clock,
      });
      return {
        licenseKey: row.license_key,
        expiresAt: expiresAt.toISOString(),
        signedPayload: encodeDocument(record),
        signingKeyId: record.kid,
        licenseId: row.id,
      };
    });
  }
}

/** `POST /api/v1/keys/revoke`: marked in the database, listed in the next snapshot (at once on this replica). */
@Injectable()
export class RevokeLicense {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly licenses: LicenseKeyRepository,
    private readonly revocations: RevocationRepository,
    private readonly snapshots: RevocationSnapshotCache,
    private readonly cache: ValidationCache,
    @Inject(LicenseServerSettings) private readonly settings: LicenseServerSettings,
  ) {}

  async execute(licenseKey: string, reason: string): Promise<RevokeKeyView> {
    const key = wellFormedKey(licenseKey);
    const { row, revocation } = await this.uow.run(async (m) => {
      const row = await this.licenses.revoke(m, key, reason);
      if (!row) throw AppError.notFound(LicenseErrors.LicenseNotFound, 'No license with this key');
      const revocation = await this.revocations.record(m, row.id, reason, this.settings.revocationGraceHours);
      return { row, revocation };
    });
    await this.cache.changed(row.license_key, 'revoked');
    const snapshot = await this.snapshots.refresh();
    return {
      licenseKey: row.license_key,
      licenseId: row.id,
      isRevoked: true,
      revokedAt: new Date(revocation.revoked_at).toISOString(),
      reason: revocation.reason,
      graceDeadline: new Date(revocation.grace_deadline).toISOString(),
      snapshotSequence: snapshot.sequence,
    };
  }
}

/** `POST /api/v1/keys/{licenseKey}/features`: add and remove in one atomic update. */
@Injectable()
export class UpdateLicenseFeatures {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly licenses: LicenseKeyRepository,
    private readonly cache: ValidationCache,
  ) {}

  async execute(
    licenseKey: string,
    add: string[] | undefined,
    remove: string[] | undefined,
  ): Promise<FeatureUpdateView> {
    const key = wellFormedKey(licenseKey);
    const toAdd = checkFeatures('add', add);
    const toRemove = checkFeatures('remove', remove);
    if (!toAdd.length && !toRemove.length) {
      throw AppError.badRequest(
        LicenseErrors.FeatureUpdateEmpty,
        'Give at least one feature to add or remove',
      );
    }
    const features = await this.uow.run((m) => this.licenses.updateFeatures(m, key, toAdd, toRemove));
    if (!features) throw AppError.notFound(LicenseErrors.LicenseNotFound, 'No license with this key');
    await this.cache.changed(key, 'features');
    return { licenseKey: key, allowedFeatures: features };
  }
}

/** `POST /api/v1/assembly-whitelist/approve`: an assembly hash approved globally or for one license. */
@Injectable()
export class ApproveAssembly {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly licenses: LicenseKeyRepository,
    private readonly approvals: AssemblyApprovalRepository,
  ) {}

  async execute(dto: AssemblyApprovalDto): Promise<AssemblyApprovalView> {
    const licenseId = dto.licenseId ?? null;
    if (dto.approvalScope === 'License' && !licenseId) {
      throw AppError.badRequest(
        LicenseErrors.ApprovalScopeInvalid,
        'approvalScope License needs a licenseId',
      );
    }
    if (dto.approvalScope === 'Global' && licenseId) {
      throw AppError.badRequest(
        LicenseErrors.ApprovalScopeInvalid,
        'approvalScope Global takes no licenseId',
      );
    }
    const row = await this.uow.run(async (m) => {
      if (licenseId && !(await this.licenses.exists(m, licenseId))) {
        throw AppError.notFound(LicenseErrors.LicenseNotFound, 'No license with this licenseId');
      }
      return this.approvals.upsert(m, {
        id: randomUUID(),
        assembly_name: dto.assemblyName,
        version: dto.version,
        sha256_hash: dto.sha256Hash.toLowerCase(),
        public_key_token: dto.publicKeyToken ?? null,
        approval_scope: dto.approvalScope,
        license_id: licenseId,
        source: dto.source,
      });
    });
    return {
      id: row.id,
      assemblyName: row.assembly_name,
      version: row.version,
      sha256Hash: row.sha256_hash,
      publicKeyToken: row.public_key_token,
      approvalScope: row.approval_scope,
      licenseId: row.license_id,
      source: row.source,
      approvedAt: new Date(row.approved_at).toISOString(),
    };
  }
}
