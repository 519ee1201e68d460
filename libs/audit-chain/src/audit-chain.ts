import { createHash, createPublicKey, KeyObject, sign, verify } from 'node:crypto';
import { canonicalJson } from './canonical-json';

/** The `prevHash` of a tenant's first entry. */
export const GENESIS_HASH = '0'.repeat(64);

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
 * of its `keyId`, and the last entry equal to the chain head (so deleting the newest rows is detected).
 */
export function verifyChain(
  tenantId: string,
  entries: SignedAuditEntry[],
  keys: Record<string, KeyObject | string>,
  head?: { seq: number; hash: string } | null,
): ChainVerification {
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
  if (head) {
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
