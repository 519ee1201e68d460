import { ChainVerification, SignedAuditEntry } from '@arbiter/audit-chain';
import { ApiProperty } from '@nestjs/swagger';
import { AuditChain, AuditVerification } from '../application/audit-trail';
import { AUDIT_ACTIONS } from '../domain/audit-actions';

const HASH_EXAMPLE = '9f2c4e7a1b0d3c5e8f6a2b4c6d8e0f1a3b5c7d9e1f2a4b6c8d0e2f4a6b8c0d2e';

/**
 * The verification of a tenant's signed audit chain: contiguous `seq` from 1, each `prevHash` the previous
 * entry's hash, each hash recomputed, each RSA signature valid, the last entry the signed chain head.
 */
export class AuditVerificationView implements AuditVerification {
  @ApiProperty({ description: 'True when every check passed.', example: true })
  valid!: boolean;

  @ApiProperty({ example: 'acme' })
  tenantId!: string;

  @ApiProperty({
    type: 'integer',
    description: 'Entries checked before the first failure (or all).',
    example: 12,
  })
  entriesChecked!: number;

  // Nullable objects are described inline (`type: object` + `nullable`): a `$ref` beside `nullable` is not
  // null-able under OpenAPI 3.0's rules, which validators apply strictly.
  @ApiProperty({
    type: 'object',
    nullable: true,
    required: ['seq'],
    properties: {
      seq: { type: 'integer', example: 7 },
      workflowName: { type: 'string', example: 'loan' },
      action: { type: 'string', enum: [...AUDIT_ACTIONS], example: 'ACTIVATE' },
      version: { type: 'integer', nullable: true, example: 2 },
    },
    description:
      'The first entry that fails (or the position of a missing one: `seq` only); null when valid.',
    example: null,
  })
  firstBadEntry!: ChainVerification['firstBadEntry'];

  @ApiProperty({
    type: 'string',
    nullable: true,
    description: 'Why verification failed; null when valid.',
    example: null,
  })
  reason!: string | null;

  @ApiProperty({
    type: 'integer',
    nullable: true,
    description: 'Sequence number of the chain head.',
    example: 12,
  })
  headSeq!: number | null;

  @ApiProperty({
    type: 'string',
    nullable: true,
    description:
      "The workflow asked about (its entries are part of the tenant's chain); null for the tenant.",
    example: null,
  })
  workflowName!: string | null;

  @ApiProperty({ description: 'Id of the key the signatures were checked with.', example: 'cp-audit-2026' })
  keyId!: string;
}

/** One signed entry of the tenant's audit chain, every field that is hashed and signed. */
export class SignedAuditEntryView implements SignedAuditEntry {
  @ApiProperty({ example: 'acme' })
  tenantId!: string;

  @ApiProperty({ type: 'integer', description: 'Position in the tenant chain, from 1.', example: 3 })
  seq!: number;

  @ApiProperty({ description: 'The workflow, or `*` for a tenant-wide action.', example: 'loan' })
  workflowName!: string;

  @ApiProperty({ format: 'date-time', example: '2026-03-02T10:30:00.000Z' })
  timestamp!: string;

  @ApiProperty({ example: 'bob' })
  actor!: string;

  @ApiProperty({ enum: AUDIT_ACTIONS, example: 'ACTIVATE' })
  action!: string;

  @ApiProperty({ type: 'integer', nullable: true, example: 2 })
  version!: number | null;

  @ApiProperty({ type: 'string', nullable: true, example: 'ship it' })
  detail!: string | null;

  @ApiProperty({ example: 'success' })
  status!: string;

  @ApiProperty({ description: "The previous entry's hash (64 zeros for the first).", example: HASH_EXAMPLE })
  prevHash!: string;

  @ApiProperty({ example: 'cp-audit-2026' })
  keyId!: string;

  @ApiProperty({
    description: 'SHA-256 (hex) of the canonical JSON (RFC 8785) of the other fields.',
    example: HASH_EXAMPLE,
  })
  hash!: string;

  @ApiProperty({ description: 'base64 RSASSA-PKCS1-v1_5 SHA-256 signature of the same canonical JSON.' })
  signature!: string;
}

/** `GET /api/v1/control-plane/audit/chain`: the whole chain, for offline verification. */
export class AuditChainView implements AuditChain {
  @ApiProperty({ example: 'acme' })
  tenantId!: string;

  @ApiProperty({ description: "This node's signing key id.", example: 'cp-audit-2026' })
  keyId!: string;

  @ApiProperty({ type: SignedAuditEntryView, isArray: true, description: 'In `seq` order.' })
  entries!: SignedAuditEntryView[];

  @ApiProperty({
    type: 'object',
    nullable: true,
    required: ['seq', 'hash', 'signature'],
    properties: {
      tenantId: { type: 'string', example: 'acme' },
      seq: { type: 'integer', example: 12 },
      hash: { type: 'string', example: HASH_EXAMPLE },
      signedAt: { type: 'string', format: 'date-time', example: '2026-03-02T10:30:00.000Z' },
      keyId: { type: 'string', example: 'cp-audit-2026' },
      signature: {
        type: 'string',
        nullable: true,
        description:
          "base64 RSASSA-PKCS1-v1_5 SHA-256 over the canonical JSON of `{ type: 'audit-head', tenantId, seq, hash, signedAt, keyId }`; null only when it was removed (verification fails).",
      },
    },
    description:
      "The signed chain head (the last entry's `seq` and hash, signed in the transaction of every append); null before the first entry.",
  })
  head!: AuditChain['head'];
}

/** `GET /api/v1/control-plane/audit/public-key`: the key to verify the chain's signatures with. */
export class AuditPublicKeyView {
  @ApiProperty({ example: 'cp-audit-2026' })
  keyId!: string;

  @ApiProperty({ enum: ['RS256'] })
  algorithm!: 'RS256';

  @ApiProperty({
    description: 'SPKI public key, PEM.',
    example: '-----BEGIN PUBLIC KEY-----\nMIIBIjANBg…\n-----END PUBLIC KEY-----\n',
  })
  publicKeyPem!: string;
}
