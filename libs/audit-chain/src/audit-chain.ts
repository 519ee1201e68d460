import { createHash, createPublicKey, KeyObject, sign, verify } from 'node:crypto';
import { canonicalJson } from './canonical-json';

/** The `prevHash` of a tenant's first entry. */
export const GENESIS_HASH = '0'.repeat(64);

/**
 * The key id the control plane's migration to signed heads gives the unsigned head of a chain written
 * before it: the next append signs it (once; the chain could not be proven untruncated before that).
 */
export const PRE_SIGNING_HEAD_KEY_ID = 'unsigned-before-signed-heads';

/** What is hashed and signed: every stored field of the entry except the hash and signature. */
export interface AuditContent {
  tenantId: string;
  seq: number;
  workflowName: string;
  timestamp: string;
  actor: string;
  action: string;
  version: number | null;
  detail: string | null;
  status: string;
  prevHash: string;
  keyId: string;
}

export interface SignedAuditEntry extends AuditContent {
  hash: string;
  /** base64 RSASSA-PKCS1-v1_5 SHA-256 over the canonical JSON (RFC 8785) of the content. */
  signature: string;
}

/** The signed text of an entry: its content as canonical JSON (RFC 8785). */
export function canonicalContent(c: AuditContent): string {
  return canonicalJson({
    tenantId: c.tenantId,
    seq: c.seq,
    workflowName: c.workflowName,
    timestamp: c.timestamp,
    actor: c.actor,
    action: c.action,
    version: c.version,
    detail: c.detail,
    status: c.status,
    prevHash: c.prevHash,
    keyId: c.keyId,
  });
}

/** Hashes and signs an entry's content (RSASSA-PKCS1-v1_5, SHA-256). */
export function signContent(c: AuditContent, privateKey: KeyObject): SignedAuditEntry {
  const text = canonicalContent(c);
  return {
    ...c,
    hash: createHash('sha256').update(text).digest('hex'),
    signature: sign('sha256', Buffer.from(text), privateKey).toString('base64'),
  };
}

/**
 * The signed chain head of a tenant: its last `seq` and that entry's hash, signed with the audit key
 * in the same transaction as every append. Verification compares the entries with it, so deleting the
 * newest entries (and rewinding the head) is detected: the head cannot be re-signed without the key.
 */
export interface AuditHeadContent {
  tenantId: string;
  seq: number;
  hash: string;
  /** When this head was signed (the time of the append that moved it). */
  signedAt: string;
  keyId: string;
}

export interface SignedAuditHead extends AuditHeadContent {
  /** base64 RSASSA-PKCS1-v1_5 SHA-256 over the canonical JSON of `{ type: 'audit-head', ...content }`. */
  signature: string;
}

/** What a chain is verified against: a signed head, or (legacy callers) an unsigned `{ seq, hash }`. */
export type ChainHead = SignedAuditHead | { seq: number; hash: string; signature?: null };

/** The signed text of a head; `type` keeps it distinct from any entry's signed text. */
export function canonicalHead(h: AuditHeadContent): string {
  return canonicalJson({
    type: 'audit-head',
    tenantId: h.tenantId,
    seq: h.seq,
    hash: h.hash,
    signedAt: h.signedAt,
    keyId: h.keyId,
  });
}

/** Signs a chain head (RSASSA-PKCS1-v1_5, SHA-256). */
export function signHead(h: AuditHeadContent, privateKey: KeyObject): SignedAuditHead {
  return { ...h, signature: sign('sha256', Buffer.from(canonicalHead(h)), privateKey).toString('base64') };
}

/** Whether a head's signature is valid under `publicKey`. */
export function headSignatureValid(h: SignedAuditHead, publicKey: KeyObject | string): boolean {
  const key = typeof publicKey === 'string' ? createPublicKey(publicKey) : publicKey;
  try {
    return verify('sha256', Buffer.from(canonicalHead(h)), key, Buffer.from(h.signature, 'base64'));
  } catch {
    return false;
  }
}

export interface VerifyChainOptions {
  /**
   * Require a signed head (the default): a missing head while entries exist, an unsigned head or a bad
   * head signature fails verification. `false` only for chains read from a store without signed heads.
   */
  requireSignedHead?: boolean;
  /**
   * The lowest head `seq` the verifier has seen before (a head recorded earlier): a head below it means
   * the chain was rolled back to an earlier signed state, which the signatures alone cannot show.
   */
  minHeadSeq?: number;
}

export interface ChainVerification {
  valid: boolean;
  tenantId: string;
  entriesChecked: number;
  /** The first entry that fails (or the position where one is missing). */
  firstBadEntry: { seq: number; workflowName?: string; action?: string; version?: number | null } | null;
  reason: string | null;
  headSeq: number | null;
}

/**
 * Verifies a tenant's chain in `seq` order: contiguous sequence from 1, each `prevHash` equal to the
 * previous entry's hash, each hash recomputed from the content, each signature valid under the key
 * of its `keyId`, and the last entry equal to the signed chain head (the head signature is checked, so
 * deleting the newest rows and rewinding the head is detected; `minHeadSeq` also detects a rollback to an
 * earlier signed head).
 */
export function verifyChain(
  tenantId: string,
  entries: SignedAuditEntry[],
  keys: Record<string, KeyObject | string>,
  head?: ChainHead | null,
  options: VerifyChainOptions = {},
): ChainVerification {
  const requireSignedHead = options.requireSignedHead ?? true;
  const publicKeys = new Map<string, KeyObject>();
  for (const [id, key] of Object.entries(keys))
    publicKeys.set(id, typeof key === 'string' ? createPublicKey(key) : key);
  let prevHash = GENESIS_HASH;
  let expectedSeq = 1;
  const fail = (
    entry: SignedAuditEntry | { seq: number },
    reason: string,
    checked: number,
  ): ChainVerification => ({
    valid: false,
    tenantId,
    entriesChecked: checked,
    firstBadEntry: {
      seq: entry.seq,
      ...('action' in entry
        ? { workflowName: entry.workflowName, action: entry.action, version: entry.version }
        : {}),
    },
    reason,
    headSeq: head?.seq ?? null,
  });
  for (let i = 0; i < entries.length; i++) {
    const e = entries[i];
    if (e.tenantId !== tenantId) return fail(e, `entry belongs to tenant '${e.tenantId}'`, i);
    if (e.seq !== expectedSeq)
      return fail(
        e.seq > expectedSeq ? { seq: expectedSeq } : e,
        e.seq > expectedSeq
          ? `entries ${expectedSeq}..${e.seq - 1} are missing (deleted)`
          : `sequence out of order (expected ${expectedSeq})`,
        i,
      );
    if (e.prevHash !== prevHash)
      return fail(e, 'prevHash does not match the previous entry (chain broken)', i);
    const text = canonicalContent(e);
    if (createHash('sha256').update(text).digest('hex') !== e.hash)
      return fail(e, 'hash does not match the content (entry edited)', i);
    const key = publicKeys.get(e.keyId);
    if (!key) return fail(e, `no public key for key id '${e.keyId}'`, i);
    if (!verify('sha256', Buffer.from(text), key, Buffer.from(e.signature, 'base64')))
      return fail(e, 'signature invalid', i);
    prevHash = e.hash;
    expectedSeq++;
  }
  if (!head) {
    if (requireSignedHead && entries.length > 0)
      return fail(
        { seq: expectedSeq - 1 },
        'the signed chain head is missing (deleted): the newest entries cannot be shown complete',
        entries.length,
      );
    if (options.minHeadSeq !== undefined && options.minHeadSeq > 0)
      return fail(
        { seq: 1 },
        `the chain has no head but a head at ${options.minHeadSeq} was seen before: the chain was removed`,
        entries.length,
      );
  } else {
    if (head.signature) {
      const signed = head as SignedAuditHead;
      if (signed.tenantId !== tenantId)
        return fail({ seq: head.seq }, `chain head belongs to tenant '${signed.tenantId}'`, entries.length);
      const key = publicKeys.get(signed.keyId);
      if (!key)
        return fail(
          { seq: head.seq },
          `no public key for the chain head's key id '${signed.keyId}'`,
          entries.length,
        );
      if (!headSignatureValid(signed, key))
        return fail(
          { seq: head.seq },
          'chain head signature invalid (the head was rewritten: newest entries deleted or the head rewound)',
          entries.length,
        );
    } else if (requireSignedHead && (head.seq > 0 || entries.length > 0)) {
      return fail(
        { seq: head.seq },
        (head as { keyId?: string | null }).keyId === PRE_SIGNING_HEAD_KEY_ID
          ? 'the chain head predates signed heads (written before the upgrade): the next audited change signs it; until then the tail cannot be proven complete'
          : 'the chain head is not signed (its signature was removed)',
        entries.length,
      );
    }
    if (options.minHeadSeq !== undefined && head.seq < options.minHeadSeq)
      return fail(
        { seq: head.seq + 1 },
        `the chain head (${head.seq}) is behind a head seen before (${options.minHeadSeq}): entries ${head.seq + 1}..${options.minHeadSeq} were removed and the chain rolled back`,
        entries.length,
      );
    if (head.seq !== expectedSeq - 1)
      return fail(
        { seq: expectedSeq },
        head.seq > expectedSeq - 1
          ? `entries ${expectedSeq}..${head.seq} are missing (deleted; the chain head is at ${head.seq})`
          : `chain head (${head.seq}) is behind the entries`,
        entries.length,
      );
    if (head.hash !== prevHash)
      return fail({ seq: head.seq }, 'chain head hash differs from the last entry', entries.length);
  }
  return {
    valid: true,
    tenantId,
    entriesChecked: entries.length,
    firstBadEntry: null,
    reason: null,
    headSeq: head?.seq ?? null,
  };
}
