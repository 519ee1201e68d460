import { EventBus, RunningService, startService } from '@arbiter/platform';
import {
  natsServerBinary,
  OwnNatsServer,
  ServiceUnderTest,
  startOwnNatsServer,
  startServiceForTest,
} from '@arbiter/testing';
import { HubConnection } from '@microsoft/signalr';
import { controlPlaneService } from '../src';
import { A, client, connectHub } from './helpers';

const EXECUTE = '/api/v1/rule-engine/execute';
const rules = (tier: string) => ({
  rules: [{ id: 'tier', name: 'Tier', condition: 'amount >= 0', output: { tier } }],
});

async function until(
  what: string,
  check: () => boolean | Promise<boolean>,
  timeoutMs = 30_000,
  state: () => unknown = () => '',
) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what} ${JSON.stringify(state())}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * Issue 27 item 3: two nodes on one database and one NATS (a server of the test's own, JetStream on,
 * store in a temporary directory). NATS goes down, node A saves and activates five times (ten change
 * events), saves once more and starts a canary of it, NATS comes back: the hub clients of both nodes
 * get all eleven changes in order, once each, and the canary start, and node B's cache has the last
 * version as soon as its hub client is told (without waiting for the 15 s poll).
 */
const binary = natsServerBinary();
(binary ? describe : describe.skip)('change events across a NATS outage (two nodes, own nats-server)', () => {
  let nats: OwnNatsServer;
  let a: ServiceUnderTest;
  let b: RunningService;
  const hubs: HubConnection[] = [];

  beforeAll(async () => {
    nats = await startOwnNatsServer(binary);
    a = await startServiceForTest(controlPlaneService, 'ConnectionStrings:RuleControlPlaneDb', {
      overrides: { 'RuleControlPlane:RequireApproval': false, 'ConnectionStrings:Cache': nats.url },
    });
    b = await startService(controlPlaneService, {
      environment: 'Testing',
      env: {},
      port: 0,
      host: '127.0.0.1',
      overrides: {
        // one database for both nodes on PostgreSQL; on PGlite node B has its own (hub part only)
        'ConnectionStrings:RuleControlPlaneDb':
          a.database.kind === 'postgres' ? a.database.url : 'pglite://memory',
        'ConnectionStrings:Cache': nats.url,
        'RuleControlPlane:RequireApproval': false,
      },
    });
  }, 120_000);
  afterAll(async () => {
    await Promise.all(hubs.map((h) => h.stop().catch(() => undefined)));
    await b?.close();
    await a?.stop();
    await nats?.dispose();
  });

  it('delivers every change made while NATS was down to the hub clients of both nodes, and node B catches up', async () => {
    const busA = a.service.app.get(EventBus);
    const busB = b.app.get(EventBus);
    await until('both nodes on NATS', () => busA.status().connected && busB.status().connected);
    const received = { a: [] as any[], b: [] as any[] };
    const canary = { a: [] as any[], b: [] as any[] };
    for (const [node, url] of [
      ['a', a.url],
      ['b', b.url],
    ] as const) {
      const hub = await connectHub(url, 'acme', '/hubs/rule-set-change');
      hubs.push(hub);
      hub.on('RuleSetChangeEvent', (event) => received[node].push(event));
      hub.on('CanaryStateChanged', (event) => canary[node].push(event));
    }
    const api = client(a.url, { 'x-tenant-id': 'acme', 'x-actor': 'alice' });
    const shared = a.database.kind === 'postgres';
    const apiB = client(b.url, { 'x-tenant-id': 'acme' });

    // Before the outage: one change reaches both nodes' hubs, and node B caches version 1.
    expect((await api.post(`${A}/outage`, { ruleSet: rules('v1'), activateAfterSave: true })).status).toBe(
      200,
    );
    await until('the first change on both hubs', () => received.a.length >= 2 && received.b.length >= 2);
    if (shared)
      expect((await apiB.post(`${EXECUTE}/outage`, { facts: { amount: 1 } })).body.outputs).toEqual({
        tier: 'v1',
      });

    await nats.stop();
    await until('both nodes to see NATS down', () => !busA.status().connected && !busB.status().connected);
    const before = { a: received.a.length, b: received.b.length };
    const revisions: number[] = [];
    for (let i = 2; i <= 6; i++) {
      const res = await api.post(`${A}/outage`, { ruleSet: rules(`v${i}`), activateAfterSave: true });
      expect(res.status).toBe(200);
      revisions.push(res.body.revision);
    }
    // and a canary rollout of a saved (not activated) version 7
    expect((await api.post(`${A}/outage/save`, rules('v7'))).status).toBe(200);
    const rollout = await api.post('/api/v1/canary', {
      workflowName: 'outage',
      version: 7,
      targetTenantIds: ['acme'],
    });
    expect(rollout.status).toBe(201);
    await new Promise((r) => setTimeout(r, 300));
    // nothing can arrive while NATS is down
    expect(received.a.length).toBe(before.a);
    expect(received.b.length).toBe(before.b);

    const restarted = Date.now();
    await nats.start();
    await until(
      'the missed changes on both hubs after NATS returns',
      () =>
        received.a.length >= before.a + 11 &&
        received.b.length >= before.b + 11 &&
        canary.a.length >= 1 &&
        canary.b.length >= 1,
      30_000,
      () => ({
        before,
        a: received.a.map((e) => `${e.change}:${e.version}`),
        b: received.b.map((e) => `${e.change}:${e.version}`),
        busA: busA.status(),
        busB: busB.status(),
      }),
    );
    const caughtUpMs = Date.now() - restarted;
    await new Promise((r) => setTimeout(r, 500)); // no duplicates arrive late
    for (const node of ['a', 'b'] as const) {
      const missed = received[node].slice(before[node]);
      expect(missed).toHaveLength(11);
      expect(missed.map((e) => `${e.change}:${e.version}`)).toEqual([
        ...[2, 3, 4, 5, 6].flatMap((v) => [`saved:${v}`, `activated:${v}`]),
        'saved:7',
      ]);
      expect(canary[node]).toEqual([
        expect.objectContaining({
          workflowName: 'outage',
          status: 'Active',
          version: 7,
          rolloutId: rollout.body.rolloutId,
        }),
      ]);
      // in revision order, ending at the last save+activate's revision
      const seen = missed.map((e) => e.revision as number);
      expect([...seen].sort((x, y) => x - y)).toEqual(seen);
      expect(seen[9]).toBe(revisions[revisions.length - 1]);
    }
    // node B caught up from the replayed events, well before its 15 s revision poll: its canary router
    // sends acme's traffic to version 7, the rollout started during the outage
    if (shared) {
      const executed = await apiB.post(`${EXECUTE}/outage`, { facts: { amount: 1 } });
      expect(executed.body).toMatchObject({ version: 7, outputs: { tier: 'v7' } });
    }
    expect(caughtUpMs).toBeLessThan(15_000);
    process.stdout.write(
      `change-outage: both hubs had the 11 missed changes and the canary start ${caughtUpMs} ms after NATS restarted\n`,
    );

    // and after the outage, changes flow as before
    await api.post(`${A}/outage`, { ruleSet: rules('v8'), activateAfterSave: true });
    await until('a change after the outage', () => received.b.length >= before.b + 13);
  }, 120_000);
});
