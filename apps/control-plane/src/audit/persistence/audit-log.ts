import { Inject, Injectable, Logger } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import {
  GENESIS_HASH,
  headSignatureValid,
  PRE_SIGNING_HEAD_KEY_ID,
  SignedAuditEntry,
  SignedAuditHead,
  signContent,
  signHead,
} from '@arbiter/audit-chain';
import { AuditSigner } from '../application/audit-signer';
import { AuditAction } from '../domain/audit-actions';
import { RuleSetAuditEntity } from './entities';

/** A tenant's entries in `seq` order and its chain head (unsigned only when its signature was removed). */
export interface AuditChain {
  entries: SignedAuditEntry[];
  head: SignedAuditHead | { seq: number; hash: string; signature: null; keyId: string | null } | null;
}

export interface AuditInput {
  workflowName: string;
  action: AuditAction;
  actor: string;
  version: number | null;
  detail?: string | null;
  status?: string;
}

/** Raised when the stored chain head fails its signature: the chain is not extended from it. */
export class AuditHeadTamperedError extends Error {
  constructor(tenantId: string, seq: number, why: string) {
    super(
      `The audit chain head of tenant '${tenantId}' (seq ${seq}) ${why}: refusing to extend a chain whose newest entries may have been removed (run 'arbiter audit verify')`,
    );
    this.name = 'AuditHeadTamperedError';
  }
}

interface HeadRow {
  tenant_id: string;
  seq: string | number;
  hash: string;
  signed_at: Date | string | null;
  key_id: string | null;
  signature: string | null;
}

function toHead(
  row: HeadRow,
): SignedAuditHead | { seq: number; hash: string; signature: null; keyId: string | null } {
  if (!row.signature || !row.key_id || !row.signed_at)
    return { seq: Number(row.seq), hash: row.hash, signature: null, keyId: row.key_id };
  return {
    tenantId: row.tenant_id,
    seq: Number(row.seq),
    hash: row.hash,
    signedAt: new Date(row.signed_at).toISOString(),
    keyId: row.key_id,
    signature: row.signature,
  };
}

function toSignedEntry(row: RuleSetAuditEntity): SignedAuditEntry {
  return {
    tenantId: row.tenantId,
    seq: Number(row.seq),
    workflowName: row.workflowName,
    timestamp: new Date(row.timestamp).toISOString(),
    actor: row.actor,
    action: row.action,
    version: row.version,
    detail: row.detail,
    status: row.status,
    prevHash: row.prevHash,
    keyId: row.keyId,
    hash: row.hash,
    signature: row.signature,
  };
}

/**
 * The signed audit tables (`rule_set_audit`, `rule_set_audit_heads`), inside the caller's unit of work.
 * Appends signed entries to the tenant's hash chain inside the caller's transaction: the chain head
 * row is locked (`SELECT … FOR UPDATE`), so concurrent writers of one tenant queue up and the chain
 * stays linear; the entries commit or roll back with the change they record. The head is signed in
 * the same transaction (seq, hash, time, key id), and its signature is checked before the chain is
 * extended from it: a rewound or unsigned head is never blessed by a later append.
 */
@Injectable()
export class AuditLog {
  private readonly logger = new Logger('Audit');

  constructor(@Inject(AuditSigner) private readonly signer: AuditSigner) {}

  async append(m: EntityManager, tenantId: string, inputs: AuditInput[]): Promise<SignedAuditEntry[]> {
    await m.query(
      `INSERT INTO rule_set_audit_heads (tenant_id, seq, hash) VALUES ($1, 0, $2) ON CONFLICT (tenant_id) DO NOTHING`,
      [tenantId, GENESIS_HASH],
    );
    const [row] = (await m.query(
      `SELECT tenant_id, seq, hash, signed_at, key_id, signature FROM rule_set_audit_heads WHERE tenant_id = $1 FOR UPDATE`,
      [tenantId],
    )) as HeadRow[];
    const head = toHead(row);
    // A key generated in memory (Testing, `pglite://memory`) is this process's own: nodes sharing a
    // database then sign with different keys and cannot check each other's heads, so only a configured
    // (or Development file) key, the one every node of a deployment shares, guards the append.
    if (this.signer.source !== 'generated-memory' && (head.seq > 0 || head.hash !== GENESIS_HASH)) {
      if (!head.signature) {
        // a head from before signed heads (marked by the migration) is signed by this append, once
        if (head.keyId !== PRE_SIGNING_HEAD_KEY_ID)
          throw new AuditHeadTamperedError(tenantId, head.seq, 'is not signed');
        this.logger.warn(
          `signing the audit chain head of tenant '${tenantId}' (seq ${head.seq}) written before signed heads`,
        );
      } else {
        if (head.tenantId !== tenantId || !this.signer.verifiesKey(head.keyId))
          throw new AuditHeadTamperedError(
            tenantId,
            head.seq,
            `is signed with an unknown key '${head.keyId}'`,
          );
        if (!headSignatureValid(head, this.signer.publicKey))
          throw new AuditHeadTamperedError(tenantId, head.seq, 'has an invalid signature');
      }
    }
    let seq = head.seq;
    let prevHash: string = head.hash;
    const written: SignedAuditEntry[] = [];
    for (const input of inputs) {
      seq++;
      const entry = signContent(
        {
          tenantId,
          seq,
          workflowName: input.workflowName,
          timestamp: new Date().toISOString(),
          actor: input.actor,
          action: input.action,
          version: input.version,
          detail: input.detail ?? null,
          status: input.status ?? 'success',
          prevHash,
          keyId: this.signer.keyId,
        },
        this.signer.privateKey,
      );
      await m.query(
        `INSERT INTO rule_set_audit (tenant_id, seq, workflow_name, timestamp, actor, action, version, detail, status,
                                     prev_hash, hash, signature, key_id)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`,
        [
          tenantId,
          seq,
          entry.workflowName,
          entry.timestamp,
          entry.actor,
          entry.action,
          entry.version,
          entry.detail,
          entry.status,
          entry.prevHash,
          entry.hash,
          entry.signature,
          entry.keyId,
        ],
      );
      prevHash = entry.hash;
      written.push(entry);
    }
    const signed = signHead(
      { tenantId, seq, hash: prevHash, signedAt: new Date().toISOString(), keyId: this.signer.keyId },
      this.signer.privateKey,
    );
    await m.query(
      `UPDATE rule_set_audit_heads SET seq = $2, hash = $3, signed_at = $4, key_id = $5, signature = $6
       WHERE tenant_id = $1`,
      [tenantId, seq, prevHash, signed.signedAt, signed.keyId, signed.signature],
    );
    return written;
  }

  async chain(m: EntityManager, tenantId: string): Promise<AuditChain> {
    const rows = await m
      .getRepository(RuleSetAuditEntity)
      .createQueryBuilder('a')
      .where('a.tenant_id = :tenantId', { tenantId })
      .orderBy('a.seq', 'ASC')
      .getMany();
    const [head] = (await m.query(
      `SELECT tenant_id, seq, hash, signed_at, key_id, signature FROM rule_set_audit_heads WHERE tenant_id = $1`,
      [tenantId],
    )) as HeadRow[];
    return { entries: rows.map(toSignedEntry), head: head ? toHead(head) : null };
  }

  /** A page of a workflow's entries, newest first, with the total. */
  page(
    m: EntityManager,
    workflowName: string,
    skip: number,
    take: number,
  ): Promise<[RuleSetAuditEntity[], number]> {
    return m.getRepository(RuleSetAuditEntity).findAndCount({
      where: { workflowName },
      order: { seq: 'DESC' },
      skip,
      take,
    });
  }
}
