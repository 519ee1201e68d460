import { startServiceForTest, ServiceUnderTest } from '@arbiter/testing';
import { controlPlaneService } from '../src';
import { A, B, client, operatorAuthOverrides, operatorToken, rulesDoc } from './helpers';

const SECRET = 'shared-hmac-secret-for-control-plane-tests-0123';

describe('rule set routes with authorization enabled (policies)', () => {
  let sut: ServiceUnderTest;
  beforeAll(async () => {
    sut = await startServiceForTest(controlPlaneService, 'ConnectionStrings:RuleControlPlaneDb', {
      overrides: {
        'RuleControlPlane:RequireApproval': true,
        ...operatorAuthOverrides(SECRET),
      },
    });
  });
  afterAll(() => sut?.stop());

  const as = async (name: string, roles: string[]) => {
    const token = await operatorToken(SECRET, name, roles);
    return client(sut.url, { authorization: `Bearer ${token}` });
  };

  it('needs a token (401), Viewer to read, Admin to save and submit, Approver to approve and activate', async () => {
    expect((await client(sut.url).get(A)).status).toBe(401);
    const viewer = await as('vera', ['Viewer']);
    const admin = await as('adam', ['Admin']);
    const approver = await as('april', ['Approver']);
    expect((await viewer.get(A)).status).toBe(200);
    const denied = await viewer.post(`${A}/secure/save`, rulesDoc(1));
    expect(denied.status).toBe(403);
    expect(denied.body.code).toBe('FORBIDDEN');
    const saved = await admin.post(`${A}/secure/save`, rulesDoc(1));
    expect(saved.body).toMatchObject({ version: 1, createdBy: 'adam' });
    expect((await approver.post(`${B}/rulesets/secure/1/submit`, { detail: 'x' })).status).toBe(403);
    expect((await admin.post(`${B}/rulesets/secure/1/submit`, { detail: 'review' })).status).toBe(200);
    expect((await viewer.post(`${B}/rulesets/secure/1/approve`, { detail: 'ok' })).status).toBe(403);
    // the submitter (an admin, who also holds the approver policy) cannot approve its own version
    const self = await admin.post(`${B}/rulesets/secure/1/approve`, { detail: 'ok' });
    expect(self.status).toBe(409);
    expect(self.body.code).toBe('SELF_APPROVAL');
    expect((await approver.post(`${B}/rulesets/secure/1/approve`, { detail: 'ok' })).status).toBe(200);
    expect((await viewer.post(`${A}/secure/activate/1`)).status).toBe(403);
    const activated = await approver.post(`${A}/secure/activate/1`);
    expect(activated.body).toMatchObject({ status: 'Active', activatedBy: 'april' });
    expect((await viewer.get('/api/v1/tenants')).status).toBe(403);
    expect((await admin.get('/api/v1/tenants')).status).toBe(200);
  });

  it('node-wide metrics need the permission control-plane.metrics, not a tenant role (403 otherwise)', async () => {
    const routes = [`${B}/metrics`, `${B}/execution/metrics`, `${B}/execution-audit/metrics`];
    const viewer = await as('vera', ['Viewer']);
    const admin = await as('adam', ['Admin']);
    const operator = client(sut.url, {
      authorization: `Bearer ${await operatorToken(SECRET, 'mona', [], 'acme', ['control-plane.metrics'])}`,
    });
    const wildcard = client(sut.url, {
      authorization: `Bearer ${await operatorToken(SECRET, 'root', [], 'globex', ['control-plane.*'])}`,
    });
    for (const route of routes) {
      expect((await client(sut.url).get(route)).status).toBe(401);
      for (const denied of [viewer, admin]) {
        const res = await denied.get(route);
        expect({ route, status: res.status, code: res.body.code }).toEqual({
          route,
          status: 403,
          code: 'FORBIDDEN',
        });
      }
      expect({ route, status: (await operator.get(route)).status }).toEqual({ route, status: 200 });
      expect({ route, status: (await wildcard.get(route)).status }).toEqual({ route, status: 200 });
    }
    // the permission opens the metrics only: no rule set route
    expect((await operator.get(A)).status).toBe(403);
  });

  it('binds a hub connection to the token tenant; the upgrade without negotiation is refused', async () => {
    const viewer = await as('vera', ['Viewer']);
    const negotiated = await viewer.post('/hubs/rule-set-change/negotiate?negotiateVersion=1');
    expect(negotiated.status).toBe(200);
    expect((await client(sut.url).post('/hubs/rule-set-change/negotiate')).status).toBe(401);
  });
});
