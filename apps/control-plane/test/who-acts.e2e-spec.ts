import { startServiceForTest, ServiceUnderTest } from '@arbiter/testing';
import { controlPlaneService } from '../src';
import { A, B, client, operatorAuthOverrides, operatorToken, rulesDoc } from './helpers';

const SECRET = 'shared-hmac-secret-for-who-acts-tests-0123456789';

/**
 * Issue 27 item 1: who acted is who is authenticated. With a token, the token's user is the actor of
 * every state change; a body `actor` or an `X-Actor` header naming someone else is refused (403
 * `ACTOR_MISMATCH`), on every route family, the canary routes, quotas and the tool-protocol tools.
 */
describe('who acts, with authorization enabled', () => {
  let sut: ServiceUnderTest;
  beforeAll(async () => {
    sut = await startServiceForTest(controlPlaneService, 'ConnectionStrings:RuleControlPlaneDb', {
      overrides: {
        'RuleControlPlane:RequireApproval': true,
        'RuleControlPlane:EnableCanary': true,
        ...operatorAuthOverrides(SECRET),
      },
    });
  });
  afterAll(() => sut?.stop());

  const as = async (name: string, roles: string[], headers: Record<string, string> = {}) => {
    const token = await operatorToken(SECRET, name, roles);
    return client(sut.url, { authorization: `Bearer ${token}`, ...headers });
  };

  it('one operator cannot do maker-checker alone by naming another approver in the body', async () => {
    const admin = await as('adam', ['Admin']);
    expect((await admin.post(`${A}/mc/save`, rulesDoc(1))).status).toBe(200);
    const forged = await admin.post(`${B}/rulesets/mc/1/submit`, { detail: 'x', actor: 'Mallory' });
    expect(forged.status).toBe(403);
    expect(forged.body.code).toBe('ACTOR_MISMATCH');
    const submitted = await admin.post(`${B}/rulesets/mc/1/submit`, { detail: 'review' });
    expect(submitted.body).toMatchObject({ status: 'PendingApproval', submittedBy: 'adam' });
    for (const path of [`${B}/rulesets/mc/1/approve`, `${B}/approvals/mc/1/approve`]) {
      const approved = await admin.post(path, { detail: 'ok', actor: 'approver1' });
      expect(approved.status).toBe(403);
      expect(approved.body.code).toBe('ACTOR_MISMATCH');
      const header = await admin.post(path, { detail: 'ok' }, { 'x-actor': 'approver1' });
      expect(header.status).toBe(403);
      expect(header.body.code).toBe('ACTOR_MISMATCH');
    }
    // naming yourself is fine, and self-approval compares the authenticated identities
    const self = await admin.post(`${B}/rulesets/mc/1/approve`, { detail: 'ok', actor: 'adam' });
    expect(self.status).toBe(409);
    expect(self.body.code).toBe('SELF_APPROVAL');
    const april = await as('april', ['Approver']);
    const approved = await april.post(`${B}/rulesets/mc/1/approve`, { detail: 'ok' });
    expect(approved.body).toMatchObject({ status: 'Approved', approvedBy: 'april' });
    const activate = await april.post(`${A}/mc/activate`, { version: 1, detail: 'go', actor: 'bob' });
    expect(activate.status).toBe(403);
    expect(activate.body.code).toBe('ACTOR_MISMATCH');
    const activated = await april.post(`${A}/mc/activate`, { version: 1, detail: 'go' });
    expect(activated.body).toMatchObject({ status: 'Active', activatedBy: 'april' });
    const audit = await april.get(`${A}/mc/audit?page=1&pageSize=20`);
    expect(audit.body.entries.map((e: { actor: string }) => e.actor).sort()).toEqual([
      'adam',
      'adam',
      'april',
      'april',
    ]);
  });

  it('saves, rule-set form saves, canary routes, quotas and tools refuse a different actor', async () => {
    const admin = await as('adam', ['Admin']);
    const refused = async (p: Promise<{ status: number; body: any }>) => {
      const r = await p;
      expect([r.status, r.body?.code]).toEqual([403, 'ACTOR_MISMATCH']);
    };
    await refused(admin.post(`${A}/w2/save`, { ...rulesDoc(1), actor: 'Mallory' }));
    await refused(admin.post(`${A}/w2`, { ruleSet: rulesDoc(1), actor: 'Mallory' }));
    await refused(admin.post(`${B}/rulesets/w2`, { ruleSet: rulesDoc(1), actor: 'Mallory' }));
    const saved = await admin.post(`${A}/w2`, { ruleSet: rulesDoc(1), actor: 'adam' });
    expect(saved.body).toMatchObject({ version: 1, createdBy: 'adam' });
    const forgedHeader = await admin.post(`${A}/w2/save`, rulesDoc(2), { 'x-actor': 'Mallory' });
    expect(forgedHeader.status).toBe(403);
    expect((await admin.post(`${A}/w2/save`, rulesDoc(2))).body.createdBy).toBe('adam');
    await refused(admin.post(`${A}/w2/canary-start`, { version: 2, targetPercentage: 10, actor: 'Mallory' }));
    await refused(admin.post('/api/v1/canary', { workflowName: 'w2', version: 2, actor: 'Mallory' }));
    await refused(admin.post(`${B}/cache/invalidate`, { workflowName: 'w2', actor: 'Mallory' }));
    const quotas = await admin.call(
      'PUT',
      '/api/v1/tenants/acme/quotas/limits',
      { maxConcurrentExecutions: 5 },
      { 'x-actor': 'Mallory' },
    );
    expect([quotas.status, quotas.body.code]).toEqual([403, 'ACTOR_MISMATCH']);
    const put = await admin.call('PUT', '/api/v1/tenants/acme/quotas/limits', { maxConcurrentExecutions: 5 });
    expect(put.status).toBe(200);
    expect(put.body.updatedBy).toBe('adam');
    const tool = await admin.post('/sse', {
      method: 'svc_ruleset_save',
      args: { workflowName: 'w3', ruleSet: rulesDoc(1), actor: 'Mallory' },
    });
    expect([tool.status, tool.body?.code]).toEqual([403, 'ACTOR_MISMATCH']);
    const toolOk = await admin.post('/sse', {
      method: 'svc_ruleset_save',
      args: { workflowName: 'w3', ruleSet: rulesDoc(1) },
    });
    expect(toolOk.status).toBe(200);
    expect(JSON.stringify(toolOk.body)).toContain('"createdBy":"adam"');
  });
});

describe('who acts, with authorization disabled', () => {
  let sut: ServiceUnderTest;
  beforeAll(async () => {
    sut = await startServiceForTest(controlPlaneService, 'ConnectionStrings:RuleControlPlaneDb', {
      overrides: { 'RuleControlPlane:RequireApproval': true },
    });
  });
  afterAll(() => sut?.stop());

  it('the body actor, then X-Actor, then control-plane name the actor', async () => {
    const api = client(sut.url, { 'x-tenant-id': 'acme' });
    expect((await api.post(`${A}/open/save`, { ...rulesDoc(1), actor: 'alice' })).body.createdBy).toBe(
      'alice',
    );
    const submitted = await api.post(`${B}/rulesets/open/1/submit`, { detail: 'x' }, { 'x-actor': 'bob' });
    expect(submitted.body.submittedBy).toBe('bob');
    const approved = await api.post(`${B}/rulesets/open/1/approve`, { detail: 'ok', actor: 'carol' });
    expect(approved.body.approvedBy).toBe('carol');
    expect((await api.post(`${A}/open/activate/1`)).body.activatedBy).toBe('control-plane');
  });
});
