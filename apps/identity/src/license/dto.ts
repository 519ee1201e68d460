import { ArrayField, EnumField, IntField, StringField } from '@arbiter/platform';
import { ApiProperty } from '@nestjs/swagger';

const LICENSE_KEY = {
  minLength: 1,
  maxLength: 64,
  description: 'The license key: `ARB-XXXXX-XXXXX-XXXXX-XXXXX-CC` (the last group is a check code)',
  example: 'ARB-7K3QX-M2P9D-4RWT8-ZC6NB-5H',
};
const FINGERPRINT = /^[A-Za-z0-9._:@/+=-]{1,256}$/;
const FEATURE = /^(\*|[A-Za-z0-9][A-Za-z0-9._-]{0,63})$/;

export class GenerateKeyDto {
  @StringField({ minLength: 1, maxLength: 128, example: 'org-acme' })
  organizationId: string;

  @StringField({ minLength: 1, maxLength: 256, example: 'Acme Corp' })
  organizationName: string;

  @EnumField(['Free', 'Licensed', 'Enterprise'], { example: 'Licensed' })
  tier: 'Free' | 'Licensed' | 'Enterprise';

  @IntField({ min: 1, max: 36500, description: 'Days from now until the license expires', example: 365 })
  validDays: number;

  @IntField({ min: 1, max: 100000, description: 'Machines that may be activated at once', example: 5 })
  maxActivations: number;

  @ArrayField('string', {
    optional: true,
    maxItems: 100,
    maxLength: 64,
    description:
      'Capability keys (`pdf.designer`, `pdf.registry`, `pdf.canary`, …; `*` passes every gate). Omitted: the ' +
      "tier's defaults (Free `api.validate`; Licensed `vsix.publish`, `vsix.watch`, `vsix.explorer`, " +
      '`api.validate`, `cp.publish`; Enterprise `*`).',
    example: ['api.validate', 'pdf.canary'],
  })
  allowedFeatures?: string[];
}

export class RevokeKeyDto {
  @StringField(LICENSE_KEY)
  licenseKey: string;

  @StringField({ minLength: 1, maxLength: 1000, example: 'contract ended' })
  reason: string;
}

export class FeatureUpdateDto {
  @ArrayField('string', { optional: true, maxItems: 100, maxLength: 64, example: ['pdf.canary'] })
  add?: string[];

  @ArrayField('string', { optional: true, maxItems: 100, maxLength: 64, example: ['pdf.designer'] })
  remove?: string[];
}

export class ManifestEntryDto {
  @StringField({ minLength: 1, maxLength: 256, example: 'Arbiter.Runtime' })
  assemblyName: string;

  @StringField({ minLength: 1, maxLength: 64, example: '2.4.0' })
  version: string;

  @StringField({
    pattern: /^[0-9a-fA-F]{64}$/,
    description: 'SHA-256 of the assembly, 64 hexadecimal digits',
    example: '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08',
  })
  sha256Hash: string;

  @StringField({ nullable: true, maxLength: 64, example: null })
  publicKeyToken?: string | null;
}

export class ActivateDto {
  @StringField(LICENSE_KEY)
  licenseKey: string;

  @StringField({
    pattern: FINGERPRINT,
    description:
      'The machine (or, with `LicenseConfigs:FingerprintScope` = `ProjectOnly`, the project) the proof is bound to',
    example: 'build-agent-01',
  })
  machineFingerprint: string;

  @StringField({ minLength: 1, maxLength: 64, example: '2.4.0' })
  productVersion: string;

  @StringField({ minLength: 1, maxLength: 64, example: 'Production' })
  environment: string;

  @ArrayField(ManifestEntryDto, {
    optional: true,
    maxItems: 500,
    description:
      'The assemblies of a custom build; each hash must be approved globally or for this license, else 403 ' +
      '`MANIFEST_NOT_APPROVED`. Omitted or empty: an official build, no check.',
  })
  assemblyManifest?: ManifestEntryDto[];

  @StringField({
    optional: true,
    maxLength: 16_384,
    description:
      "The license's signed policy: the `signedPayload` that `POST /api/v1/keys/generate` returned with the key " +
      '(base64). Mandatory when `LicenseConfigs:RequireSignedPolicy` is on (400 `SIGNED_POLICY_REQUIRED`); ' +
      'whenever given it must verify under a published license key and be the record of this license ' +
      '(401 `SIGNED_POLICY_INVALID`).',
    example: 'eyJhbGciOiJFZERTQSIsImtpZCI6ImxpYy0uLi4ifQ==',
  })
  signedPolicy?: string;
}

export class ValidateDto {
  @StringField(LICENSE_KEY)
  licenseKey: string;

  @StringField({ pattern: FINGERPRINT, example: 'build-agent-01' })
  machineFingerprint: string;

  @StringField({
    minLength: 1,
    maxLength: 64,
    description: 'The action asked about: a feature key the license must grant (e.g. `api.validate`)',
    example: 'api.validate',
  })
  actionType: string;
}

export class HeartbeatDto {
  @StringField({
    format: 'uuid',
    description: '`proofId` of the activation proof',
    example: '5b0e8c0e-4a43-4d6e-9d0f-6a1d8b1f2c3d',
  })
  proofId: string;

  @StringField({
    format: 'uuid',
    description: '`licenseId` of the activation proof',
    example: '0f4e2b9a-1c3d-4e5f-8a7b-6c5d4e3f2a1b',
  })
  licenseId: string;

  @StringField({ pattern: FINGERPRINT, example: 'build-agent-01' })
  machineFingerprint: string;

  @StringField({
    minLength: 16,
    maxLength: 128,
    description: 'The nonce of the proof (first heartbeat) or of the last heartbeat answer; single use',
    example: 'Jx1r0m4S7pW2vQ9kL3zX8cV1EaB6nD5f',
  })
  nonce: string;
}

export class AssemblyApprovalDto {
  @StringField({ minLength: 1, maxLength: 256, example: 'Acme.Custom.Rules' })
  assemblyName: string;

  @StringField({ minLength: 1, maxLength: 64, example: '1.0.3' })
  version: string;

  @StringField({
    pattern: /^[0-9a-fA-F]{64}$/,
    example: '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08',
  })
  sha256Hash: string;

  @StringField({ nullable: true, maxLength: 64, example: null })
  publicKeyToken?: string | null;

  @EnumField(['Global', 'License'], {
    description: '`Global` (official releases) or `License` (one customer fork: `licenseId` required)',
    example: 'License',
  })
  approvalScope: 'Global' | 'License';

  @StringField({ nullable: true, format: 'uuid', example: '0f4e2b9a-1c3d-4e5f-8a7b-6c5d4e3f2a1b' })
  licenseId?: string | null;

  @StringField({ minLength: 1, maxLength: 64, example: 'ci' })
  source: string;
}

export { FEATURE, FINGERPRINT };

// ---- responses (the `result` of the hosted envelope) ----

export class GenerateKeyView {
  @ApiProperty({ example: 'ARB-7K3QX-M2P9D-4RWT8-ZC6NB-5H' })
  licenseKey!: string;

  @ApiProperty({ format: 'date-time' })
  expiresAt!: string;

  @ApiProperty({
    description:
      'Base64 of the signed license record (`arbiter.license.key`), verifiable with the published keys',
  })
  signedPayload!: string;

  @ApiProperty({ example: 'lic-3q2Zq0b1vV9cS4dX' })
  signingKeyId!: string;

  @ApiProperty({
    format: 'uuid',
    description: 'The license id (proofs, heartbeats and license-scoped approvals name it)',
  })
  licenseId!: string;
}

export class RevokeKeyView {
  @ApiProperty() licenseKey!: string;
  @ApiProperty({ format: 'uuid' }) licenseId!: string;
  @ApiProperty({ enum: [true] }) isRevoked!: true;
  @ApiProperty({ format: 'date-time' }) revokedAt!: string;
  @ApiProperty() reason!: string;
  @ApiProperty({
    format: 'date-time',
    description: 'Heartbeat clients may run until then (`RevocationGraceHours`)',
  })
  graceDeadline!: string;
  @ApiProperty({ type: 'integer', description: 'Sequence of the revocation snapshot that lists it' })
  snapshotSequence!: number;
}

export class FeatureUpdateView {
  @ApiProperty() licenseKey!: string;
  @ApiProperty({ type: [String] }) allowedFeatures!: string[];
}

export class RotatedKeyView {
  @ApiProperty({ enum: ['PS256', 'EdDSA'] }) alg!: 'PS256' | 'EdDSA';
  @ApiProperty({ description: 'The new active key id of this kind' }) kid!: string;
  @ApiProperty({ type: String, nullable: true }) previousKid!: string | null;
}

export class LicenseKeyRotationView {
  @ApiProperty({ description: 'The new active proof key id (PS256: what new activation proofs carry)' })
  kid!: string;
  @ApiProperty({ type: String, nullable: true, description: 'The proof key id before' }) previousKid!:
    string | null;
  @ApiProperty({
    type: [RotatedKeyView],
    description: 'Every key kind rotated: PS256 (proofs, records, snapshots) and EdDSA (heartbeat answers)',
  })
  rotated!: RotatedKeyView[];
}

export class SignedDocumentView {
  @ApiProperty({
    enum: ['PS256', 'EdDSA'],
    description:
      '`PS256` (RSA-2048 PSS, SHA-256) for proofs, license records and snapshots; `EdDSA` (Ed25519) for heartbeat answers',
  })
  alg!: 'PS256' | 'EdDSA';
  @ApiProperty({ description: 'Id of the signing key (see `GET /api/v1/license/keys`)' }) kid!: string;
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description: 'The signed content (`typ` names its kind)',
  })
  payload!: object;
  @ApiProperty({
    description: 'The signature (base64url, by `alg`) over the canonical JSON (RFC 8785) of `payload`',
  })
  signature!: string;
}

export class ActivationView {
  @ApiProperty({ enum: [true] }) success!: true;
  @ApiProperty({
    type: SignedDocumentView,
    description: 'The activation proof (payload `typ` `arbiter.license.activation-proof`)',
  })
  proof!: SignedDocumentView;
  @ApiProperty({ description: 'Base64 of the proof JSON' }) activationProof!: string;
  @ApiProperty({ example: 'Activated' }) message!: string;
}

export class ValidateView {
  @ApiProperty() isValid!: boolean;
  @ApiProperty({ type: String, nullable: true, enum: ['Free', 'Licensed', 'Enterprise'] }) tier!:
    string | null;
  @ApiProperty({ type: [String] }) allowedFeatures!: string[];
  @ApiProperty({ type: String, nullable: true, format: 'date-time' }) expiresAt!: string | null;
  @ApiProperty({
    type: String,
    nullable: true,
    description:
      'Why not valid: `LICENSE_NOT_FOUND`, `LICENSE_REVOKED`, `LICENSE_EXPIRED`, `MACHINE_NOT_ACTIVATED`, `FEATURE_NOT_ALLOWED`',
  })
  error!: string | null;
}

export class HeartbeatView {
  @ApiProperty({ enum: [true] }) success!: true;
  @ApiProperty() isRevoked!: boolean;
  @ApiProperty({ type: String, nullable: true, format: 'date-time' }) graceDeadline!: string | null;
  @ApiProperty({ description: 'The nonce of the next heartbeat (single use)' }) nonce!: string;
  @ApiProperty({ format: 'date-time' }) serverTime!: string;
  @ApiProperty({ type: 'integer' }) counter!: number;
  @ApiProperty({
    type: SignedDocumentView,
    description: 'The signed answer (payload `typ` `arbiter.license.heartbeat`)',
  })
  heartbeat!: SignedDocumentView;
  @ApiProperty({ description: 'Base64 of the signed answer' }) signedHeartbeat!: string;
}

export class RevocationSnapshotView {
  @ApiProperty({ type: 'integer', description: 'Only grows; a runtime refuses a lower one' })
  sequence!: number;
  @ApiProperty({
    type: SignedDocumentView,
    description:
      'Payload `typ` `arbiter.license.revocation-snapshot`: `{ sequence, issuedAt, serverTime, counter, revoked: [{ licenseId, revokedAt, reason, graceDeadline }] }`',
  })
  snapshot!: SignedDocumentView;
  @ApiProperty({ description: 'Base64 of the signed snapshot' }) signedSnapshot!: string;
}

export class AssemblyApprovalView {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty() assemblyName!: string;
  @ApiProperty() version!: string;
  @ApiProperty() sha256Hash!: string;
  @ApiProperty({ type: String, nullable: true }) publicKeyToken!: string | null;
  @ApiProperty({ enum: ['Global', 'License'] }) approvalScope!: 'Global' | 'License';
  @ApiProperty({ type: String, nullable: true, format: 'uuid' }) licenseId!: string | null;
  @ApiProperty() source!: string;
  @ApiProperty({ format: 'date-time' }) approvedAt!: string;
}

export class LicenseJwkView {
  @ApiProperty({ enum: ['RSA', 'OKP'], description: '`RSA` for `PS256` keys, `OKP` for `EdDSA` keys' })
  kty!: 'RSA' | 'OKP';
  @ApiProperty({ required: false, enum: ['Ed25519'], description: 'OKP keys only' }) crv?: 'Ed25519';
  @ApiProperty({ required: false, description: 'OKP: the public key (base64url)' }) x?: string;
  @ApiProperty({ required: false, description: 'RSA: the modulus (base64url)' }) n?: string;
  @ApiProperty({ required: false, description: 'RSA: the public exponent (base64url)' }) e?: string;
  @ApiProperty() kid!: string;
  @ApiProperty({ enum: ['PS256', 'EdDSA'] }) alg!: 'PS256' | 'EdDSA';
  @ApiProperty({ enum: ['sig'] }) use!: 'sig';
}

export class LicenseJwksView {
  @ApiProperty({
    type: [LicenseJwkView],
    description: 'Every key the license server signs or signed with, newest first',
  })
  keys!: LicenseJwkView[];
}
