import { startServiceForTest, ServiceUnderTest } from '@arbiter/testing';
import { controlPlaneService } from '../src';
import { A, B, client, rulesDoc } from './helpers';

const BIG = 2 ** 31; // one above PostgreSQL's integer: was a 500

/** Issue 27 items 4–8 and 12: bad input and interop, answered in the family's envelope with a code. */
describe('bad input and interop', () => {
  let sut: ServiceUnderTest;
  const raw = (
    method: string,
    path: string,
    body: string | undefined,
    headers: Record<string, string> = {},
  ) =>
    fetch(`${sut.url}${path}`, {
      method,
      headers: { 'x-tenant-id': 'acme', ...headers },
      body,
    }).then(async (res) => ({ status: res.status, body: JSON.parse((await res.text()) || 'null') }));

  beforeAll(async () => {
    sut = await startServiceForTest(controlPlaneService, 'ConnectionStrings:RuleControlPlaneDb', {
      overrides: { 'RuleControlPlane:RequireApproval': false, 'RuleControlPlane:EnableCanary': true },
    });
    const api = client(sut.url, { 'x-tenant-id': 'acme' });
    expect((await api.post(`${A}/interop/save`, rulesDoc(1))).status).toBe(200);
    expect((await api.post(`${A}/interop/save`, rulesDoc(2))).status).toBe(200);
  });
  afterAll(() => sut?.stop());

  it('a body version above 2^31-1 is 400 INVALID_VERSION on every route, as in a path (item 4)', async () => {
    const api = client(sut.url, { 'x-tenant-id': 'acme' });
    for (const [path, body] of [
      [`${A}/interop/activate`, { version: BIG }],
      [`${A}/interop/export`, { format: 'json', version: BIG }],
      ['/api/v1/canary', { workflowName: 'interop', version: BIG }],
      [`${A}/interop/canary-start`, { version: BIG, targetPercentage: 10 }],
      [`${A}/interop/dry-run`, { inputs: {}, version: BIG }],
      [`${A}/interop/activate`, { version: 'two' }],
    ] as const) {
      const r = await api.post(path, body);
      expect([path, r.status, r.body.code]).toEqual([path, 400, 'INVALID_VERSION']);
      expect(r.body.details).toHaveLength(1);
    }
    const inPath = await api.post(`${A}/interop/activate/${BIG}`);
    expect([inPath.status, inPath.body.code]).toEqual([400, 'INVALID_VERSION']);
  });

  it('an empty body with content-type application/json is no body (item 5)', async () => {
    const r = await raw('POST', `${A}/interop/activate/1`, '', { 'content-type': 'application/json' });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ version: 1, status: 'Active' });
    const invalidate = await raw('POST', `${B}/cache/invalidate`, undefined, {
      'content-type': 'application/json',
    });
    expect(invalidate.status).toBe(200);
  });

  it('a trailing slash is the route without it (item 6)', async () => {
    const api = client(sut.url, { 'x-tenant-id': 'acme' });
    for (const path of [
      `${A}/`,
      `${B}/rulesets/`,
      '/api/v1/canary/',
      '/api/v1/tenants/',
      `${A}/interop/versions/`,
    ]) {
      const r = await api.get(path);
      expect([path, r.status]).toEqual([path, 200]);
    }
    expect(
      (await api.get(`${A}/`)).body.rulesets.map((r: { workflowName: string }) => r.workflowName),
    ).toContain('interop');
  });

  it("the router's own errors are in the family's envelope with a code (item 7)", async () => {
    const api = client(sut.url, { 'x-tenant-id': 'acme' });
    const long = await api.get(`${A}/${'w'.repeat(129)}/versions`);
    expect([long.status, long.body.code]).toEqual([400, 'INVALID_WORKFLOW_NAME']);
    const tooLong = await api.get(`${A}/${'w'.repeat(600)}/versions`);
    expect(tooLong.status).toBe(414);
    expect(tooLong.body).toEqual({
      error: expect.any(String),
      code: 'URI_TOO_LONG',
      traceId: expect.any(String),
    });
  });

  it('a __proto__ key is refused with a code that says so, on the hot route and the others (item 8)', async () => {
    const poisoned = '{"facts":{"__proto__":{"x":1}}}';
    for (const path of ['/api/v1/rule-engine/execute/interop', `${A}/interop/dry-run`]) {
      const r = await raw('POST', path, poisoned, { 'content-type': 'application/json' });
      expect([path, r.status, r.body.code]).toEqual([path, 400, 'FORBIDDEN_JSON_KEY']);
      expect(r.body.error).toMatch(/__proto__/);
    }
    const broken = await raw('POST', `${A}/interop/dry-run`, '{"inputs":', {
      'content-type': 'application/json',
    });
    expect([broken.status, broken.body.code]).toEqual([400, 'MALFORMED_JSON']);
  });

  it("the root README's first steps: save, list, activate, execute (item 15)", async () => {
    const api = client(sut.url, { 'x-tenant-id': 'acme' });
    const saved = await api.post(`${A}/pricing/save`, {
      rules: [{ id: 'r1', name: 'big', condition: 'amount > 1000', output: { discount: 0.1 } }],
      changeDescription: 'first',
    });
    expect(saved.body).toMatchObject({ version: 1 });
    const listed = await api.get(A);
    expect(listed.body.rulesets).toEqual(
      expect.arrayContaining([expect.objectContaining({ workflowName: 'pricing', activeVersion: null })]),
    );
    const activated = await raw('POST', `${A}/pricing/activate/1`, undefined);
    expect(activated.body.status).toBe('Active');
    const run = await api.post('/api/v1/rule-engine/execute/pricing', { facts: { amount: 1500 } });
    expect(run.status).toBe(200);
    expect(run.body.outputs).toMatchObject({ discount: 0.1 });
  });

  it('unknown fields are refused with their path in every shape, as in the flow graph (item 9)', async () => {
    const api = client(sut.url, { 'x-tenant-id': 'acme' });
    const rule = { id: 'r1', name: 'R1', condition: 'amount > 1', output: { ok: true } };
    const rulesForm = await api.post(`${A}/unknown-fields`, {
      ruleSet: { rules: [{ ...rule, extra: true }], foo: 1 },
    });
    expect([rulesForm.status, rulesForm.body.code]).toEqual([400, 'INVALID_RULESET']);
    expect(rulesForm.body.details.map((d: { field: string }) => d.field).sort()).toEqual([
      'ruleSet.foo',
      'ruleSet.rules[0].extra',
    ]);
    const legacy = await api.post(`${A}/unknown-fields`, {
      ruleSet: { WorkflowName: 'unknown-fields', Rules: [{ RuleName: 'a', Expression: 'true', Extra: 1 }] },
    });
    expect(legacy.body.details).toEqual([
      { field: 'ruleSet.Rules[0].Extra', message: expect.stringMatching(/unknown field/) },
    ]);
    const flow = await api.post(`${A}/unknown-fields`, {
      ruleSet: {
        nodes: [{ id: 'n', kind: 'feel-expression', config: { expression: '1', outputVariable: 'x' } }],
        foo: 1,
      },
    });
    expect([flow.status, flow.body.code]).toEqual([400, 'INVALID_RULESET']);
    expect((await api.post(`${A}/unknown-fields`, { ruleSet: { rules: [rule] } })).status).toBe(200);
  });

  it('a quota limit of the wrong type is one message (item 12)', async () => {
    const api = client(sut.url, { 'x-tenant-id': 'acme' });
    const r = await api.call('PUT', '/api/v1/tenants/acme/quotas/limits', {
      maxConcurrentExecutions: 'many',
    });
    expect(r.status).toBe(400);
    expect(r.body.details).toEqual([
      { field: 'maxConcurrentExecutions', message: expect.stringMatching(/integer/) },
    ]);
  });
});
