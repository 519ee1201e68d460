import { verifyChain } from '@arbiter/audit-chain';
import { createArbiterClient } from '@arbiter/client';
import type { ChainHead, ChainVerification, SignedAuditEntry } from '@arbiter/audit-chain';
import { readFileSync } from 'node:fs';
import { Client } from 'pg';

export interface AuditVerifyOptions {
  workflow?: string;
  tenant?: string;
  /** Control-plane base URL (reads `/api/v1/control-plane/audit/chain`). */
  url?: string;
  /** PostgreSQL connection string of the control-plane database (reads the tables directly). */
  database?: string;
  /** PEM file of the audit public key (or certificate). Required with --database. */
  publicKey?: string;
  /** Key id the public key belongs to (default: every entry's key id is checked against it). */
  keyId?: string;
  token?: string;
  json?: boolean;
  /**
   * The head `seq` seen at an earlier verification (the report's `headSeq`): a lower head now means the
   * chain was rolled back to an earlier signed state, which the signatures alone cannot show.
   */
  minSeq?: number | string;
}

export interface AuditVerifyReport extends ChainVerification {
  source: string;
  workflowName: string | null;
  workflowEntries: number | null;
  publicKeySource: string;
}

interface Chain {
  entries: SignedAuditEntry[];
  head: ChainHead | null;
}

/** The control plane's SDK of @arbiter/client, for one tenant (and token when authorization is on). */
function controlPlaneAt(url: string, tenant: string, token?: string) {
  return createArbiterClient({ controlPlaneUrl: url, tenant, token }).controlPlane;
}

/** Why a call answered no data: its status and error body, or the network failure. */
function failure(call: string, result: { error?: unknown; response?: Response }): Error {
  const detail = result.error instanceof Error ? result.error.message : JSON.stringify(result.error ?? null);
  return new Error(`${call} answered ${result.response?.status ?? 'nothing'}: ${detail}`);
}

async function chainFromHttp(
  url: string,
  tenant: string,
  token?: string,
): Promise<Chain & { keyId: string }> {
  const result = await controlPlaneAt(url, tenant, token).auditChain();
  if (result.data === undefined) throw failure('GET /api/v1/control-plane/audit/chain', result);
  // the cast names the shape; verifyChain checks every entry (sequence, hashes, signatures, head)
  return result.data as Chain & { keyId: string };
}

async function publicKeyFromHttp(
  url: string,
  tenant: string,
  token?: string,
): Promise<{ keyId: string; pem: string }> {
  const result = await controlPlaneAt(url, tenant, token).auditPublicKey();
  if (result.data === undefined) throw failure('GET /api/v1/control-plane/audit/public-key', result);
  const body = result.data as { keyId: string; publicKeyPem: string };
  return { keyId: body.keyId, pem: body.publicKeyPem };
}

async function chainFromDatabase(connectionString: string, tenant: string): Promise<Chain> {
  const client = new Client({ connectionString });
  await client.connect();
  try {
    // Session-level tenant for row-level security when the user is not the owner (this is our own
    // short-lived connection, nothing else uses it).
    await client.query(`SELECT set_config('app.tenant_id', $1, false)`, [tenant]);
    const rows = await client.query(`SELECT * FROM rule_set_audit WHERE tenant_id = $1 ORDER BY seq`, [
      tenant,
    ]);
    const head = await client.query(
      `SELECT seq, hash, signed_at, key_id, signature FROM rule_set_audit_heads WHERE tenant_id = $1`,
      [tenant],
    );
    const h = head.rows[0];
    return {
      entries: rows.rows.map((r) => ({
        tenantId: r.tenant_id,
        seq: Number(r.seq),
        workflowName: r.workflow_name,
        timestamp: new Date(r.timestamp).toISOString(),
        actor: r.actor,
        action: r.action,
        version: r.version,
        detail: r.detail,
        status: r.status,
        prevHash: r.prev_hash,
        keyId: r.key_id,
        hash: r.hash,
        signature: r.signature,
      })),
      head: !h
        ? null
        : h.signature && h.key_id && h.signed_at
          ? {
              tenantId: tenant,
              seq: Number(h.seq),
              hash: h.hash,
              signedAt: new Date(h.signed_at).toISOString(),
              keyId: h.key_id,
              signature: h.signature,
            }
          : { seq: Number(h.seq), hash: h.hash, signature: null },
    };
  } finally {
    await client.end();
  }
}

/**
 * `arbiter audit verify`: verifies a tenant's signed, hash-chained control-plane audit (sequence,
 * hash links, content hashes, RSA signatures, the signed chain head) independently of the server, and
 * reports the first bad entry. `--min-seq` (a head seen before) also detects a rollback to an earlier
 * signed state. Reads the chain over HTTP (`--url`) or straight from PostgreSQL (`--database`).
 */
export async function runAuditVerify(options: AuditVerifyOptions): Promise<AuditVerifyReport> {
  const tenant = options.tenant?.trim() || 'default';
  let minHeadSeq: number | undefined;
  if (options.minSeq !== undefined) {
    minHeadSeq = Number(options.minSeq);
    if (!Number.isSafeInteger(minHeadSeq) || minHeadSeq < 0)
      throw new Error(`--min-seq must be a non-negative integer (got '${options.minSeq}')`);
  }
  if (!options.url && !options.database)
    throw new Error('give --url <control-plane base URL> or --database <postgres://…>');
  let chain: Chain;
  let source: string;
  if (options.database) {
    if (!/^postgres(ql)?:\/\//.test(options.database))
      throw new Error('--database must be a postgres:// connection string');
    if (!options.publicKey) throw new Error('--public-key <pem> is required with --database');
    chain = await chainFromDatabase(options.database, tenant);
    source = 'database';
  } else {
    chain = await chainFromHttp(options.url!, tenant, options.token);
    source = options.url!;
  }
  let pem: string;
  let keyIds: string[];
  let publicKeySource: string;
  if (options.publicKey) {
    pem = readFileSync(options.publicKey, 'utf8');
    keyIds = options.keyId
      ? [options.keyId]
      : [
          ...new Set([
            ...chain.entries.map((e) => e.keyId),
            ...(chain.head && 'keyId' in chain.head ? [chain.head.keyId] : []),
          ]),
        ];
    publicKeySource = options.publicKey;
  } else {
    const fetched = await publicKeyFromHttp(options.url!, tenant, options.token);
    pem = fetched.pem;
    keyIds = [fetched.keyId];
    publicKeySource = `${options.url} (served key: pass --public-key for an independent check)`;
  }
  const keys = Object.fromEntries(keyIds.map((id) => [id, pem]));
  const result = verifyChain(tenant, chain.entries, keys, chain.head, { minHeadSeq });
  const workflowEntries = options.workflow
    ? chain.entries.filter((e) => e.workflowName === options.workflow).length
    : null;
  return { ...result, source, workflowName: options.workflow ?? null, workflowEntries, publicKeySource };
}

export function formatAuditReport(report: AuditVerifyReport): string {
  const scope = report.workflowName
    ? `workflow '${report.workflowName}' (${report.workflowEntries} entries) in `
    : '';
  if (report.valid)
    return `OK: audit chain of ${scope}tenant '${report.tenantId}' verified: ${report.entriesChecked} entries, hashes and signatures valid, head at ${report.headSeq ?? 'none'}`;
  const bad = report.firstBadEntry!;
  const what = bad.action
    ? ` (${bad.action}${bad.version != null ? ` v${bad.version}` : ''} on '${bad.workflowName}')`
    : '';
  return `FAILED: audit chain of ${scope}tenant '${report.tenantId}' is broken at entry ${bad.seq}${what}: ${report.reason}`;
}
