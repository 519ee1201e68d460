import { startServiceForTest, ServiceUnderTest } from '@arbiter/testing';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createHash, generateKeyPairSync } from 'node:crypto';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { canonicalJson, PRE_SIGNING_HEAD_KEY_ID, verifyChain } from '@arbiter/audit-chain';
import { controlPlaneService } from '../src';
import { A, B, client, rulesDoc } from './helpers';

const flow = (overrides: Record<string, unknown> = {}) => ({
  type: 'flow-graph',
  schemaVersion: 1,
  start: 'age',
  nodes: [
    {
      id: 'age',
      kind: 'condition',
      config: { expression: 'applicant.age >= 18' },
      edges: [
        { kind: 'on-true', target: 'score' },
        { kind: 'on-false', target: 'deny' },
      ],
    },
    {
      id: 'score',
      kind: 'decision-table',
      config: { tableRef: { name: 'scoring', version: 2 } },
      edges: [
        { kind: 'next', target: 'vip' },
        { kind: 'on-error', target: 'deny' },
        { kind: 'always', target: 'notify' },
      ],
    },
    {
      id: 'vip',
      kind: 'javascript-condition',
      config: { script: 'return input.total > 1000;' },
      edges: [{ kind: 'on-true', target: 'label' }],
    },
    {
      id: 'label',
      kind: 'feel-expression',
      config: { expression: 'if score > 700 then "gold" else "std"', outputVariable: 'tier' },
    },
    { id: 'notify', kind: 'connector', config: { connector: 'email', operation: 'send', timeoutMs: 2000 } },
    {
      id: 'deny',
      kind: 'template',
      config: { template: 'Denied: {{ reason }}{% if vip %} (vip){% endif %}', outputVariable: 'message' },
    },
    { id: 'sub', kind: 'sub-flow', config: { workflowName: 'kyc' } },
  ],
  ...overrides,
});

describe('flow-graph rule sets', () => {
  let sut: ServiceUnderTest;
  let api: ReturnType<typeof client>;
  beforeAll(async () => {
    sut = await startServiceForTest(controlPlaneService, 'ConnectionStrings:RuleControlPlaneDb');
    api = client(sut.url, { 'x-tenant-id': 'acme' });
  });
  afterAll(() => sut?.stop());

  it('accepts a flow using every node kind and edge kind', async () => {
    const ok = await api.post(`${A}/onboarding/validate`, { ruleSet: flow() });
    expect(ok.body).toEqual({ valid: true, shape: 'flow-graph', errors: [], warnings: [] });
    const saved = await api.post(`${A}/onboarding`, { ruleSet: flow() });
    expect(saved.status).toBe(200);
    expect(saved.body.shape).toBe('flow-graph');
  });

  it('reports precise paths: unknown targets, unknown kinds, cycles, FEEL errors with position, bad edges', async () => {
    const doc: any = flow();
    doc.nodes[3].edges = [{ kind: 'next', target: 'x' }];
    doc.nodes[4].kind = 'webhook';
    doc.nodes[0].config.expression = 'applicant.age >= ';
    doc.nodes[4].edges = [{ kind: 'on-false', target: 'deny' }];
    const res = await api.post(`${A}/onboarding/validate`, { ruleSet: doc });
    expect(res.body.valid).toBe(false);
    const messages = res.body.errors.map((e: any) => `${e.path}: ${e.message}`);
    expect(messages).toEqual(
      expect.arrayContaining([
        "ruleSet.nodes[3].edges[0].target: unknown node 'x'",
        expect.stringMatching(/^ruleSet\.nodes\[4\]\.kind: unknown node kind 'webhook'/),
        expect.stringMatching(
          /^ruleSet\.nodes\[0\]\.config\.expression: FEEL syntax error at line 1, column \d+/,
        ),
      ]),
    );
    const cyclic: any = flow();
    cyclic.nodes[4].edges = [{ kind: 'next', target: 'age' }];
    const cycle = await api.post(`${A}/onboarding`, { ruleSet: cyclic });
    expect(cycle.status).toBe(400);
    expect(cycle.body.details).toEqual([
      { field: 'ruleSet.nodes[4].edges[0].target', message: 'cycle: age → score → notify → age' },
    ]);
    const edges: any = flow();
    edges.nodes[1].edges.push({ kind: 'on-true', target: 'vip' });
    edges.nodes[5].config.template = '{% if x %}open';
    edges.nodes[2].config.script = 'return (;';
    edges.nodes[6].config.workflowName = 'onboarding';
    const more = await api.post(`${A}/onboarding/validate`, { ruleSet: edges });
    const paths = more.body.errors.map((e: any) => e.path);
    expect(paths).toEqual(
      expect.arrayContaining([
        'ruleSet.nodes[1].edges[3].kind',
        'ruleSet.nodes[5].config.template',
        'ruleSet.nodes[2].config.script',
        'ruleSet.nodes[6].config.workflowName',
      ]),
    );
    const dup: any = flow({ start: 'nowhere' });
    dup.nodes[6].id = 'age';
    const dups = await api.post(`${A}/onboarding/validate`, { ruleSet: dup });
    expect(dups.body.errors.map((e: any) => e.path)).toEqual(
      expect.arrayContaining(['ruleSet.nodes[6].id', 'ruleSet.start']),
    );
  });

  it('validates embedded decision tables', async () => {
    const doc: any = flow();
    doc.nodes[1].config = {
      table: {
        name: 'scoring',
        hitPolicy: 'First',
        inputColumns: [{ name: 'score', type: 'number' }],
        outputColumns: [{ name: 'tier', type: 'string' }],
        rows: [{ inputConditions: { score: '> 700' }, outputs: { tier: '"gold"' } }],
      },
    };
    const good = await api.post(`${A}/onboarding/validate`, { ruleSet: doc });
    expect(good.body.errors).toEqual([]);
    doc.nodes[1].config.table.rows[0].inputConditions = { score: '[1..' };
    const bad = await api.post(`${A}/onboarding/validate`, { ruleSet: doc });
    expect(bad.body.valid).toBe(false);
    expect(bad.body.errors[0].path).toMatch(/^ruleSet\.nodes\[1\]\.config\.table/);
  });
});

describe('signed, hash-chained audit', () => {
  let sut: ServiceUnderTest;
  let api: ReturnType<typeof client>;
  let owner: DataSource;
  beforeAll(async () => {
    // a configured key, as every node of a deployment shares it (an in-memory key guards no append)
    const keyDir = mkdtempSync(join(tmpdir(), 'arbiter-audit-key-'));
    const keyPath = join(keyDir, 'audit.pem');
    writeFileSync(
      keyPath,
      generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }),
    );
    sut = await startServiceForTest(controlPlaneService, 'ConnectionStrings:RuleControlPlaneDb', {
      overrides: {
        'RuleControlPlane:RequireApproval': false,
        'RuleControlPlane:AuditSignerKeyId': 'test-key',
        'RuleControlPlane:AuditPrivateKeyPemPath': keyPath,
      },
    });
    api = client(sut.url, { 'x-tenant-id': 'acme', 'x-actor': 'alice' });
    // The app's own connection is the owner/superuser (the unit of work SET ROLEs down): it bypasses
    // row-level security and the append-only grants, like an attacker with database access.
    owner = sut.service.app.get(DataSource);
    for (let i = 0; i < 3; i++)
      await api.post(`${A}/audited`, {
        ruleSet: rulesDoc(i + 1),
        activateAfterSave: true,
        detail: `v${i + 1}`,
      });
    await api.post(`${A}/other/save`, rulesDoc(1));
  });
  afterAll(() => sut?.stop());

  it('verifies an intact chain (workflow and tenant endpoints) and exposes the signed entries', async () => {
    const verify = await api.get(`${A}/audited/audit/verify`);
    expect(verify.status).toBe(200);
    expect(verify.body).toMatchObject({
      valid: true,
      tenantId: 'acme',
      firstBadEntry: null,
      keyId: 'test-key',
    });
    expect(verify.body.entriesChecked).toBe(9);
    expect((await api.get(`${B}/audit/verify`)).body.valid).toBe(true);
    const audit = await api.get(`${A}/audited/audit`);
    expect(audit.body.entries[0]).toMatchObject({
      keyId: 'test-key',
      signature: expect.any(String),
      hash: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    // offline verification with the published public key
    const chain = await api.get(`${B}/audit/chain`);
    const key = await api.get(`${B}/audit/public-key`);
    expect(
      verifyChain('acme', chain.body.entries, { 'test-key': key.body.publicKeyPem }, chain.body.head).valid,
    ).toBe(true);
  });

  it('detects an edited row at that entry', async () => {
    const [original] = await owner.query(
      `SELECT detail FROM rule_set_audit WHERE tenant_id = 'acme' AND seq = 4`,
    );
    await owner.query(`UPDATE rule_set_audit SET detail = 'forged' WHERE tenant_id = 'acme' AND seq = 4`);
    const verify = await api.get(`${A}/audited/audit/verify`);
    expect(verify.body).toMatchObject({
      valid: false,
      firstBadEntry: { seq: 4 },
      reason: expect.stringContaining('edited'),
    });
    await owner.query(`UPDATE rule_set_audit SET detail = $1 WHERE tenant_id = 'acme' AND seq = 4`, [
      original.detail,
    ]);
    expect((await api.get(`${A}/audited/audit/verify`)).body.valid).toBe(true);
  });

  it('detects a re-hashed edit through the signature, and a deleted row at its position', async () => {
    const [row] = await owner.query(`SELECT * FROM rule_set_audit WHERE tenant_id = 'acme' AND seq = 2`);
    await owner.query(`UPDATE rule_set_audit SET actor = 'mallory' WHERE tenant_id = 'acme' AND seq = 2`);
    // an attacker recomputing the hash still cannot sign
    const content = {
      tenantId: 'acme',
      seq: 2,
      workflowName: row.workflow_name,
      timestamp: new Date(row.timestamp).toISOString(),
      actor: 'mallory',
      action: row.action,
      version: row.version,
      detail: row.detail,
      status: row.status,
      prevHash: row.prev_hash,
      keyId: row.key_id,
    };
    const hash = createHash('sha256').update(canonicalJson(content)).digest('hex');
    await owner.query(`UPDATE rule_set_audit SET hash = $1 WHERE tenant_id = 'acme' AND seq = 2`, [hash]);
    const edited = await api.get(`${B}/audit/verify`);
    expect(edited.body).toMatchObject({ valid: false, firstBadEntry: { seq: 2 } });
    await owner.query(
      `UPDATE rule_set_audit SET actor = $1, hash = $2 WHERE tenant_id = 'acme' AND seq = 2`,
      [row.actor, row.hash],
    );
    expect((await api.get(`${B}/audit/verify`)).body.valid).toBe(true);

    await owner.query(`DELETE FROM rule_set_audit WHERE tenant_id = 'acme' AND seq = 5`);
    const deleted = await api.get(`${A}/audited/audit/verify`);
    expect(deleted.body).toMatchObject({
      valid: false,
      firstBadEntry: { seq: 5 },
      reason: expect.stringContaining('missing'),
    });
  });

  it('detects deletion of the newest entries through the chain head', async () => {
    const [{ max }] = await owner.query(
      `SELECT max(seq) AS max FROM rule_set_audit WHERE tenant_id = 'acme'`,
    );
    await owner.query(`DELETE FROM rule_set_audit WHERE tenant_id = 'acme' AND seq = $1`, [max]);
    const verify = await api.get(`${B}/audit/verify`);
    expect(verify.body.valid).toBe(false);
  });

  it('detects the tail cut with the head rewound, through the head signature, and refuses to extend it', async () => {
    const z = client(sut.url, { 'x-tenant-id': 'zeta', 'x-actor': 'alice' });
    for (let i = 0; i < 3; i++)
      expect((await z.post(`${A}/cut`, { ruleSet: rulesDoc(i + 1), activateAfterSave: true })).status).toBe(
        200,
      );
    const intact = await z.get(`${B}/audit/verify`);
    expect(intact.body).toMatchObject({ valid: true, firstBadEntry: null });
    const n = intact.body.headSeq as number;
    expect(intact.body.entriesChecked).toBe(n);
    const keep = n - 2;
    const chain = await z.get(`${B}/audit/chain`);
    expect(chain.body.head).toMatchObject({
      tenantId: 'zeta',
      seq: n,
      keyId: 'test-key',
      signature: expect.any(String),
      signedAt: expect.any(String),
    });
    const [head] = await owner.query(`SELECT * FROM rule_set_audit_heads WHERE tenant_id = 'zeta'`);
    // A superuser deletes the newest two entries and rewinds the head to the remaining last entry.
    const [last] = await owner.query(
      `SELECT hash FROM rule_set_audit WHERE tenant_id = 'zeta' AND seq = $1`,
      [keep],
    );
    await owner.query(`DELETE FROM rule_set_audit WHERE tenant_id = 'zeta' AND seq > $1`, [keep]);
    await owner.query(`UPDATE rule_set_audit_heads SET seq = $1, hash = $2 WHERE tenant_id = 'zeta'`, [
      keep,
      last.hash,
    ]);
    const cut = await z.get(`${B}/audit/verify`);
    expect(cut.body).toMatchObject({ valid: false, entriesChecked: keep, headSeq: keep });
    expect(cut.body.reason).toMatch(/chain head signature invalid/);
    // ... with the head's signature removed instead
    await owner.query(`UPDATE rule_set_audit_heads SET signature = NULL WHERE tenant_id = 'zeta'`);
    expect((await z.get(`${B}/audit/verify`)).body.reason).toMatch(/not signed/);
    // ... with the head row deleted as well
    await owner.query(`DELETE FROM rule_set_audit_heads WHERE tenant_id = 'zeta'`);
    const headless = await z.get(`${B}/audit/verify`);
    expect(headless.body).toMatchObject({ valid: false, headSeq: null });
    expect(headless.body.reason).toMatch(/signed chain head is missing/);
    // A later change is not chained onto the forged head (it would bless the cut): it fails, nothing written.
    await owner.query(`INSERT INTO rule_set_audit_heads (tenant_id, seq, hash) VALUES ('zeta', $1, $2)`, [
      keep,
      last.hash,
    ]);
    const refused = await z.post(`${A}/cut/save`, rulesDoc(1));
    expect(refused.status).toBe(500);
    expect(
      (await owner.query(`SELECT count(*)::int AS n FROM rule_set_audit WHERE tenant_id = 'zeta'`))[0].n,
    ).toBe(keep);
    const [{ n: versions }] = await owner.query(
      `SELECT count(*)::int AS n FROM rule_set_versions WHERE tenant_id = 'zeta' AND workflow_name = 'cut'`,
    );
    expect(versions).toBe(3);
    // Restoring the deleted rows and the signed head makes the chain whole again.
    await owner.query(`DELETE FROM rule_set_audit_heads WHERE tenant_id = 'zeta'`);
    await owner.query(
      `INSERT INTO rule_set_audit_heads (tenant_id, seq, hash, signed_at, key_id, signature) VALUES ($1, $2, $3, $4, $5, $6)`,
      [head.tenant_id, head.seq, head.hash, head.signed_at, head.key_id, head.signature],
    );
    expect((await z.get(`${B}/audit/verify`)).body.reason).toBe(
      `entries ${keep + 1}..${n} are missing (deleted; the chain head is at ${n})`,
    );
  });

  it('signs, on the next change, a head written before signed heads (an upgraded database), and only such a head', async () => {
    const l = client(sut.url, { 'x-tenant-id': 'legacy', 'x-actor': 'alice' });
    expect((await l.post(`${A}/old`, { ruleSet: rulesDoc(1) })).status).toBe(200);
    // what the migration leaves of a head written before it: no signature, the pre-signing mark
    await owner.query(
      `UPDATE rule_set_audit_heads SET signature = NULL, signed_at = NULL, key_id = $1 WHERE tenant_id = 'legacy'`,
      [PRE_SIGNING_HEAD_KEY_ID],
    );
    const before = await l.get(`${B}/audit/verify`);
    expect(before.body).toMatchObject({ valid: false });
    expect(before.body.reason).toMatch(/predates signed heads/);
    expect((await l.post(`${A}/old`, { ruleSet: rulesDoc(2) })).status).toBe(200);
    expect((await l.get(`${B}/audit/verify`)).body).toMatchObject({ valid: true, firstBadEntry: null });
    // a signed head whose signature is removed is not such a head: never extended
    await owner.query(`UPDATE rule_set_audit_heads SET signature = NULL WHERE tenant_id = 'legacy'`);
    expect((await l.post(`${A}/old`, { ruleSet: rulesDoc(3) })).status).toBe(500);
  });

  it('keeps audit rows append-only for the application role', async () => {
    const error = await owner
      .transaction(async (m) => {
        await m.query(`SET LOCAL ROLE arbiter_app`);
        await m.query(`SELECT set_config('app.tenant_id', 'acme', true)`);
        await m.query(`UPDATE rule_set_audit SET detail = 'x' WHERE seq = 1`);
      })
      .catch((e) => e);
    expect(String(error)).toMatch(/permission denied/);
  });
});

describe('file-backed rule store (RuleStoreConfigs:RootPath)', () => {
  let sut: ServiceUnderTest;
  let api: ReturnType<typeof client>;
  const root = mkdtempSync(join(tmpdir(), 'arbiter-store-'));
  beforeAll(async () => {
    sut = await startServiceForTest(controlPlaneService, 'ConnectionStrings:RuleControlPlaneDb', {
      overrides: { 'RuleControlPlane:RequireApproval': false, 'RuleStoreConfigs:RootPath': root },
    });
    api = client(sut.url, { 'x-tenant-id': 'acme', 'x-actor': 'alice' });
  });
  afterAll(async () => {
    await sut?.stop();
    rmSync(root, { recursive: true, force: true });
  });

  it('exports one stable JSON file per version and imports them back with the same validation', async () => {
    await api.post(`${A}/mirror`, {
      ruleSet: { rules: [{ output: {}, name: 'B', id: 'b', condition: 'x' }] },
      activateAfterSave: true,
    });
    await api.post(`${A}/mirror/save`, rulesDoc(2));
    const exported = await api.post(`${B}/rulesets/mirror/store/export`);
    expect(exported.status).toBe(200);
    expect(exported.body.files).toEqual(['v000001.json', 'v000002.json']);
    const dir = join(root, 'acme', 'mirror');
    expect(readdirSync(dir).sort()).toEqual(['v000001.json', 'v000002.json', 'workflow.json']);
    const text = readFileSync(join(dir, 'v000001.json'), 'utf8');
    expect(text).toMatch(/"condition": "x",\n\s+"id": "b",\n\s+"name": "B",\n\s+"output": \{\}/);
    expect(text.indexOf('"changeDescription"')).toBeLessThan(text.indexOf('"ruleSet"'));
    // re-importing an unchanged tree is a no-op
    const noop = await api.post(`${B}/rulesets/mirror/store/import`, {});
    expect(noop.body.imported).toEqual([]);
    // a new file is imported as the next version, validated, audited as IMPORT
    writeFileSync(join(dir, 'v000003.json'), JSON.stringify({ ruleSet: rulesDoc(3) }));
    const imported = await api.post(`${B}/rulesets/mirror/store/import`, { activateLatest: true });
    expect(imported.body).toMatchObject({
      imported: [{ file: 'v000003.json', version: 3 }],
      activatedVersion: 3,
    });
    expect((await api.get(`${A}/mirror/audit`)).body.entries.map((e: any) => e.action).slice(0, 3)).toEqual([
      'ACTIVATE',
      'ARCHIVE',
      'IMPORT',
    ]);
    writeFileSync(join(dir, 'v000004.json'), JSON.stringify({ ruleSet: { rules: [{ id: '' }] } }));
    const invalid = await api.post(`${B}/rulesets/mirror/store/import`, {});
    expect(invalid.status).toBe(400);
    expect(invalid.body.details[0].field).toMatch(/^v000004\.json:ruleSet\.rules\[0\]/);
    writeFileSync(join(dir, 'v000002.json'), JSON.stringify({ ruleSet: rulesDoc(5) }));
    const diverged = await api.post(`${B}/rulesets/mirror/store/import`, {});
    expect(diverged.status).toBe(409);
    expect(diverged.body.code).toBe('FILE_STORE_CONFLICT');
  });
});
