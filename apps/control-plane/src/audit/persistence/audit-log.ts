import { Inject, Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { GENESIS_HASH, SignedAuditEntry, signContent } from '@arbiter/audit-chain';
import { AuditSigner } from '../application/audit-signer';
import { AuditAction } from '../domain/audit-actions';
import { RuleSetAuditEntity } from './entities';

export interface AuditInput {
  workflowName: string;
  action: AuditAction;
  actor: string;
  version: number | null;
  detail?: string | null;
  status?: string;
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
 * stays linear; the entries commit or roll back with the change they record.
 */
@Injectable()
export class AuditLog {
  constructor(@Inject(AuditSigner) private readonly signer: AuditSigner) {}

  async append(m: EntityManager, tenantId: string, inputs: AuditInput[]): Promise<SignedAuditEntry[]> {
    await m.query(
      `INSERT INTO rule_set_audit_heads (tenant_id, seq, hash) VALUES ($1, 0, $2) ON CONFLICT (tenant_id) DO NOTHING`,
      [tenantId, GENESIS_HASH],
    );
    const [head] = await m.query(
      `SELECT seq, hash FROM rule_set_audit_heads WHERE tenant_id = $1 FOR UPDATE`,
      [tenantId],
    );
    let seq = Number(head.seq);
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
    await m.query(`UPDATE rule_set_audit_heads SET seq = $2, hash = $3 WHERE tenant_id = $1`, [
      tenantId,
      seq,
      prevHash,
    ]);
    return written;
  }

  async chain(
    m: EntityManager,
    tenantId: string,
  ): Promise<{ entries: SignedAuditEntry[]; head: { seq: number; hash: string } | null }> {
    const rows = await m
      .getRepository(RuleSetAuditEntity)
      .createQueryBuilder('a')
      .where('a.tenant_id = :tenantId', { tenantId })
      .orderBy('a.seq', 'ASC')
      .getMany();
    const [head] = await m.query(`SELECT seq, hash FROM rule_set_audit_heads WHERE tenant_id = $1`, [
      tenantId,
    ]);
    return {
      entries: rows.map(toSignedEntry),
      head: head ? { seq: Number(head.seq), hash: head.hash } : null,
    };
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
