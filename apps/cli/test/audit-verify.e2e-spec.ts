import { controlPlaneService } from '@arbiter/control-plane';
import { startServiceForTest, ServiceUnderTest } from '@arbiter/testing';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { formatAuditReport, runAuditVerify } from '../src/commands/audit';

describe('arbiter audit verify', () => {
  let sut: ServiceUnderTest;
  let pemFile: string;
  beforeAll(async () => {
    sut = await startServiceForTest(controlPlaneService, 'ConnectionStrings:RuleControlPlaneDb', {
      overrides: { 'RuleControlPlane:RequireApproval': false },
    });
    const headers = { 'content-type': 'application/json', 'x-tenant-id': 'acme' };
    for (let i = 1; i <= 3; i++)
      await fetch(`${sut.url}/api/v1/rule-engine/rulesets/loans`, {
        method: 'POST',
        headers,
        body: JSON.stringify({
          ruleSet: { rules: [{ id: 'r', name: 'R', condition: `x > ${i}`, output: {} }] },
          activateAfterSave: true,
        }),
      });
    const key = (await (
      await fetch(`${sut.url}/api/v1/control-plane/audit/public-key`, { headers })
    ).json()) as any;
    pemFile = join(mkdtempSync(join(tmpdir(), 'arbiter-cli-')), 'audit.pub.pem');
    writeFileSync(pemFile, key.publicKeyPem);
  });
  afterAll(() => sut?.stop());

  it('verifies over HTTP with the public key and reports the first bad entry after tampering', async () => {
    const ok = await runAuditVerify({ url: sut.url, tenant: 'acme', workflow: 'loans', publicKey: pemFile });
    expect(ok).toMatchObject({ valid: true, entriesChecked: 8, workflowEntries: 8 });
    expect(formatAuditReport(ok)).toMatch(/^OK: audit chain of workflow 'loans'/);
    await sut.service.app
      .get(DataSource)
      .query(`UPDATE rule_set_audit SET actor = 'mallory' WHERE tenant_id = 'acme' AND seq = 3`);
    const bad = await runAuditVerify({ url: sut.url, tenant: 'acme', workflow: 'loans', publicKey: pemFile });
    expect(bad).toMatchObject({ valid: false, firstBadEntry: { seq: 3 } });
    expect(formatAuditReport(bad)).toMatch(/^FAILED: .* broken at entry 3 \(SAVE v2 on 'loans'\)/);
  });

  it('reads the database directly with --database (PostgreSQL only)', async () => {
    if (sut.database.kind !== 'postgres') return;
    const report = await runAuditVerify({ database: sut.database.url, tenant: 'acme', publicKey: pemFile });
    expect(report.valid).toBe(false);
    expect(report.firstBadEntry?.seq).toBe(3);
  });

  it('fails when the newest entries are deleted and the head rewound, and with --min-seq on a rollback', async () => {
    const headers = { 'content-type': 'application/json', 'x-tenant-id': 'beta' };
    for (let i = 1; i <= 2; i++)
      await fetch(`${sut.url}/api/v1/rule-engine/rulesets/cut`, {
        method: 'POST',
        headers,
        body: JSON.stringify({
          ruleSet: { rules: [{ id: 'r', name: 'R', condition: `x > ${i}`, output: {} }] },
          activateAfterSave: true,
        }),
      });
    const ok = await runAuditVerify({ url: sut.url, tenant: 'beta', publicKey: pemFile });
    expect(ok.valid).toBe(true);
    const n = ok.headSeq!;
    // a head seen before that is higher than today's: rolled back
    const rolledBack = await runAuditVerify({
      url: sut.url,
      tenant: 'beta',
      publicKey: pemFile,
      minSeq: n + 1,
    });
    expect(rolledBack).toMatchObject({ valid: false, firstBadEntry: { seq: n + 1 } });
    expect(rolledBack.reason).toMatch(/rolled back/);
    await expect(
      runAuditVerify({ url: sut.url, tenant: 'beta', publicKey: pemFile, minSeq: 'x' }),
    ).rejects.toThrow(/--min-seq must be a non-negative integer/);
    const db = sut.service.app.get(DataSource);
    const [last] = await db.query(`SELECT hash FROM rule_set_audit WHERE tenant_id = 'beta' AND seq = $1`, [
      n - 1,
    ]);
    await db.query(`DELETE FROM rule_set_audit WHERE tenant_id = 'beta' AND seq = $1`, [n]);
    await db.query(`UPDATE rule_set_audit_heads SET seq = $1, hash = $2 WHERE tenant_id = 'beta'`, [
      n - 1,
      last.hash,
    ]);
    const cut = await runAuditVerify({ url: sut.url, tenant: 'beta', publicKey: pemFile });
    expect(cut).toMatchObject({ valid: false, headSeq: n - 1 });
    expect(formatAuditReport(cut)).toMatch(/^FAILED: .*chain head signature invalid/);
    if (sut.database.kind === 'postgres') {
      const direct = await runAuditVerify({ database: sut.database.url, tenant: 'beta', publicKey: pemFile });
      expect(direct.reason).toMatch(/chain head signature invalid/);
    }
  });
});
