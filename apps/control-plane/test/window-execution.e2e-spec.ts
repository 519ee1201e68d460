import { decisionsService } from '@arbiter/decisions';
import { hashApiKey } from '@arbiter/auth';
import { EventBus, InProcessEventBus, NatsEventBus } from '@arbiter/platform';
import { ServiceUnderTest, startServiceForTest } from '@arbiter/testing';
import { controlPlaneService } from '../src';
import { EventWindowClient } from '../src/execution/adapters/event-window-client';
import { A, client } from './helpers';

const EXECUTE = '/api/v1/rule-engine/execute';
const CEP = '/api/v1/rule-engine/cep';
const ACME_KEY = 'acme-cep-key';
const SERVICE_KEY = 'control-plane-service-key';

/** "More than 5 failed logins for this user in 10 minutes". */
const loginGuard = {
  rules: [
    {
      id: 'lock',
      name: 'Too many failed logins',
      condition: 'window.count > 5',
      output: { action: 'lock' },
    },
    { id: 'seen', name: 'Failures seen', condition: 'input.window.sum >= 0', output: { seen: true } },
  ],
};

describe('executions with event-window facts (control plane + decisions)', () => {
  let decisions: ServiceUnderTest;
  let controlPlane: ServiceUnderTest;
  const shared = process.env.TEST_NATS_URL?.trim() ? undefined : new InProcessEventBus('/arbiter/test-cep');
  let api: ReturnType<typeof client>;
  let cep: ReturnType<typeof client>;

  beforeAll(async () => {
    decisions = await startServiceForTest(decisionsService, 'ConnectionStrings:DecisionTablesDb', {
      sharedBus: shared,
      overrides: {
        'Authentication:ApiKeys:acme': hashApiKey(ACME_KEY),
        'Authentication:ApiKeys:*': hashApiKey(SERVICE_KEY),
      },
    });
    controlPlane = await startServiceForTest(controlPlaneService, 'ConnectionStrings:RuleControlPlaneDb', {
      sharedBus: shared,
      overrides: {
        'RuleControlPlane:RequireApproval': false,
        'RuleEngineOptions:DecisionTablesUrl': decisions.url,
        'RuleEngineOptions:DecisionTablesApiKey': SERVICE_KEY,
      },
    });
    for (const sut of [decisions, controlPlane]) {
      const bus = sut.service.app.get(EventBus);
      if (bus instanceof NatsEventBus) expect(await bus.whenConnected(10_000)).toBe(true);
    }
    api = client(controlPlane.url, { 'x-tenant-id': 'acme', 'x-actor': 'alice' });
    cep = client(`${decisions.url}${CEP}`, { 'x-tenant-id': 'acme', 'x-api-key': ACME_KEY });
    const saved = await cep.call('PUT', '/failed-logins', {
      Name: 'Failed logins',
      WindowType: 'Sliding',
      WindowSize: 'PT10M',
      TimeToLive: 'PT1H',
      CorrelationKey: 'userId',
      AllowedLateness: 'PT5S',
      Aggregates: ['count', 'sum', 'max'],
    });
    expect(saved.status).toBe(201);
    const ruleSet = await api.post(`${A}/login-guard`, { ruleSet: loginGuard, activateAfterSave: true });
    expect(ruleSet.status).toBe(200);
  }, 120_000);

  afterAll(async () => {
    await controlPlane?.stop();
    await decisions?.stop();
  });

  const failures = async (userId: string, n: number) => {
    const now = Date.now();
    const Events = Array.from({ length: n }, (_, i) => ({
      Key: userId,
      Timestamp: new Date(now - (n - i) * 10).toISOString(),
      Value: 1,
    }));
    const res = await cep.post('/failed-logins/events', { Events });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ Accepted: n, Late: 0 });
  };
  const login = (
    facts: Record<string, unknown>,
    window: unknown = { configId: 'failed-logins', keyFact: 'userId' },
  ) => api.post(`${EXECUTE}/login-guard`, { facts, window });

  it('locks a user with more than 5 failed logins in 10 minutes, not one with 5', async () => {
    await failures('mallory', 6);
    await failures('bob', 5);
    const mallory = await login({ userId: 'mallory' });
    expect(mallory.status).toBe(200);
    expect(mallory.body.errors).toEqual([]);
    expect(mallory.body).toMatchObject({ status: 'success', outputs: { action: 'lock', seen: true } });
    expect(mallory.body.rulesMatched).toEqual(['Too many failed logins', 'Failures seen']);
    const bob = await login({ userId: 'bob' });
    expect(bob.body).toMatchObject({ status: 'success', outputs: { seen: true } });
    expect(bob.body.outputs.action).toBeUndefined();
    // one more failure for bob crosses the line: the window is read live, not cached
    await failures('bob', 1);
    expect((await login({ userId: 'bob' })).body.outputs).toMatchObject({ action: 'lock' });
    // a user without events has an empty window (count 0)
    const carol = await login({ userId: 'carol' });
    expect(carol.body.rulesMatched).toEqual(['Failures seen']);
  });

  it('reads the key from a dot path, and only when the request names a window', async () => {
    const windows = controlPlane.service.app.get(EventWindowClient);
    const before = windows.fetches;
    const nested = await login(
      { user: { id: 'mallory' } },
      { configId: 'failed-logins', keyFact: 'user.id' },
    );
    expect(nested.body.outputs).toMatchObject({ action: 'lock' });
    expect(windows.fetches).toBe(before + 1);
    // no window named: no read, and no `window` fact (the rules that use it fail or do not match)
    const plain = await api.post(`${EXECUTE}/login-guard`, {
      facts: { userId: 'mallory', window: { count: 1 } },
    });
    expect(plain.status).toBe(200);
    expect(plain.body.outputs.action).toBeUndefined();
    expect(windows.fetches).toBe(before + 1);
  });

  it('refuses a bad window reference (400), an unknown configuration (422) and keeps tenants apart', async () => {
    const bad = await login({ userId: 'mallory' }, { configId: 'a.b', keyFact: '' });
    expect(bad.status).toBe(400);
    expect(bad.body.details.map((d: { field: string }) => d.field).sort()).toEqual([
      'window.configId',
      'window.keyFact',
    ]);
    expect((await login({ userId: 'mallory' }, 'failed-logins')).status).toBe(400);
    const noKey = await login({ name: 'mallory' });
    expect(noKey.status).toBe(400);
    expect(noKey.body.details[0].field).toBe('window.keyFact');
    const unknown = await login({ userId: 'mallory' }, { configId: 'nope', keyFact: 'userId' });
    expect(unknown.status).toBe(422);
    expect(unknown.body.code).toBe('EVENT_WINDOW_NOT_FOUND');
    // another tenant running its own copy of the rule set does not see acme's configuration
    const globex = client(controlPlane.url, { 'x-tenant-id': 'globex', 'x-actor': 'gina' });
    expect(
      (await globex.post(`${A}/login-guard`, { ruleSet: loginGuard, activateAfterSave: true })).status,
    ).toBe(200);
    const other = await globex.post(`${EXECUTE}/login-guard`, {
      facts: { userId: 'mallory' },
      window: { configId: 'failed-logins', keyFact: 'userId' },
    });
    expect(other.status).toBe(422);
    expect(other.body.code).toBe('EVENT_WINDOW_NOT_FOUND');
  });

  it('answers 503 when the decisions service does not answer', async () => {
    const windows = controlPlane.service.app.get(EventWindowClient) as unknown as {
      settings: { decisionTablesUrl: string };
    };
    const url = windows.settings.decisionTablesUrl;
    windows.settings.decisionTablesUrl = 'http://127.0.0.1:9';
    try {
      const res = await login({ userId: 'mallory' });
      expect(res.status).toBe(503);
      expect(res.body.code).toBe('EVENT_WINDOWS_UNAVAILABLE');
    } finally {
      windows.settings.decisionTablesUrl = url;
    }
  });
});
