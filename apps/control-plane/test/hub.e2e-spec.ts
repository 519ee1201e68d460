import { InProcessEventBus, RunningService, startService, EventBus } from '@arbiter/platform';
import { startServiceForTest, ServiceUnderTest } from '@arbiter/testing';
import { Subjects } from '@arbiter/contracts';
import { HubConnection } from '@microsoft/signalr';
import { DataSource } from 'typeorm';
import { controlPlaneService, RuleSetCache } from '../src';
import { A, B, client, connectHub, nextEvent, rulesDoc } from './helpers';

/**
 * Two control-plane nodes: with TEST_NATS_URL they talk over NATS (and share the PostgreSQL database
 * with TEST_DATABASE_URL); otherwise they share one in-process bus (each on its own PGlite).
 */
describe('change propagation across two nodes and the SignalR hub', () => {
  let a: ServiceUnderTest;
  let b: RunningService;
  const shared: EventBus | undefined = process.env.TEST_NATS_URL
    ? undefined
    : new InProcessEventBus('/test/shared');
  const connections: HubConnection[] = [];

  beforeAll(async () => {
    a = await startServiceForTest(controlPlaneService, 'ConnectionStrings:RuleControlPlaneDb', {
      sharedBus: shared,
      overrides: { 'RuleControlPlane:RequireApproval': false },
    });
    b = await startService(controlPlaneService, {
      environment: 'Testing',
      env: {},
      port: 0,
      host: '127.0.0.1',
      sharedBus: shared,
      overrides: {
        'ConnectionStrings:RuleControlPlaneDb':
          a.database.kind === 'postgres' ? a.database.url : 'pglite://memory',
        'ConnectionStrings:Cache': process.env.TEST_NATS_URL ?? '',
        'RuleControlPlane:RequireApproval': false,
      },
    });
  });
  afterAll(async () => {
    await Promise.all(connections.map((c) => c.stop().catch(() => undefined)));
    await b?.close();
    await a?.stop();
    await shared?.close();
  });

  it('negotiates per the SignalR protocol (negotiateVersion 1, WebSockets, Text)', async () => {
    const res = await fetch(`${b.url}/hubs/rule-set-change/negotiate?negotiateVersion=1`, { method: 'POST' });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      connectionId: expect.any(String),
      connectionToken: expect.any(String),
      negotiateVersion: 1,
      availableTransports: [{ transport: 'WebSockets', transferFormats: ['Text'] }],
    });
  });

  it('delivers RuleSetChangeEvent to a @microsoft/signalr client on node B after a save on node A', async () => {
    const hub = await connectHub(b.url, 'acme', '/hubs/rule-set-change');
    connections.push(hub);
    const other = await connectHub(b.url, 'globex', '/hubs/ruleset-changes');
    connections.push(other);
    let otherTenantGotOne = false;
    other.on('RuleSetChangeEvent', () => (otherTenantGotOne = true));
    const received = nextEvent(hub, 'RuleSetChangeEvent');
    const api = client(a.url, { 'x-tenant-id': 'acme', 'x-actor': 'alice' });
    const saved = await api.post(`${A}/hub-flow/save`, rulesDoc(1));
    expect(saved.status).toBe(200);
    expect(await received).toMatchObject({
      workflowName: 'hub-flow',
      tenantId: 'acme',
      version: 1,
      change: 'saved',
      revision: saved.body.revision,
      actor: 'alice',
      occurredAt: expect.any(String),
    });
    const activated = nextEvent(hub, 'RuleSetChangeEvent');
    await api.post(`${A}/hub-flow/activate/1`);
    expect(await activated).toMatchObject({ change: 'activated', version: 1 });
    const invalidated = nextEvent(hub, 'RuleSetChangeEvent');
    await api.post(`${B}/cache/invalidate`, { workflowName: 'hub-flow' });
    expect(await invalidated).toMatchObject({ change: 'invalidated' });
    await new Promise((r) => setTimeout(r, 200));
    expect(otherTenantGotOne).toBe(false);
  });

  it('pushes CanaryStateChanged on the second hub path', async () => {
    const hub = await connectHub(b.url, 'acme', '/hubs/ruleset-changes');
    connections.push(hub);
    const received = nextEvent(hub, 'CanaryStateChanged');
    const bus: EventBus = shared ?? b.app.get(EventBus);
    await bus.publish(
      Subjects.CanaryChanged,
      {
        rolloutId: 'r-1',
        workflowName: 'hub-flow',
        tenantId: 'acme',
        version: 2,
        status: 'Promoted',
        occurredAt: new Date().toISOString(),
      },
      { tenantId: 'acme' },
    );
    expect(await received).toMatchObject({ workflowName: 'hub-flow', status: 'Promoted' });
  });

  it('evicts the other node’s cache entry when the change arrives (revision-stamped)', async () => {
    if (a.database.kind !== 'postgres') return; // separate PGlite databases: nothing shared to re-read
    const apiA = client(a.url, { 'x-tenant-id': 'acme' });
    const apiB = client(b.url, { 'x-tenant-id': 'acme' });
    await apiA.post(`${A}/shared-flow`, { ruleSet: rulesDoc(1), activateAfterSave: true });
    expect((await apiB.get(`${B}/cache/shared-flow`)).body.activeVersion).toBe(1);
    await apiA.post(`${A}/shared-flow`, { ruleSet: rulesDoc(2), activateAfterSave: true });
    const deadline = Date.now() + 5000;
    let seen = 0;
    while (Date.now() < deadline) {
      seen = (await apiB.get(`${B}/cache/shared-flow`)).body.activeVersion;
      if (seen === 2) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(seen).toBe(2);
    const metrics = (await apiB.get(`${B}/metrics`)).body;
    expect(metrics.cache.evictions).toBeGreaterThan(0);
    expect(metrics.hotReloadLagMs.count).toBeGreaterThan(0);
  });
});

describe('push hub gated by RuleControlPlane:NotifyOnStateChange=false', () => {
  let sut: ServiceUnderTest;
  beforeAll(async () => {
    sut = await startServiceForTest(controlPlaneService, 'ConnectionStrings:RuleControlPlaneDb', {
      overrides: { 'RuleControlPlane:NotifyOnStateChange': false, 'RuleControlPlane:RequireApproval': false },
    });
  });
  afterAll(() => sut?.stop());

  it('accepts connections but pushes nothing', async () => {
    const hub = await connectHub(sut.url, 'acme', '/hubs/rule-set-change');
    let got = false;
    hub.on('RuleSetChangeEvent', () => (got = true));
    await client(sut.url, { 'x-tenant-id': 'acme' }).post(`${A}/quiet/save`, rulesDoc(1));
    await new Promise((r) => setTimeout(r, 300));
    expect(got).toBe(false);
    await hub.stop();
  });

  it('re-reads after a change whose message was lost, at the next revision poll', async () => {
    const api = client(sut.url, { 'x-tenant-id': 'acme' });
    await api.post(`${A}/polled/save`, rulesDoc(1));
    await api.post(`${A}/polled/save`, rulesDoc(2));
    await api.post(`${A}/polled/activate/1`);
    expect((await api.get(`${B}/cache/polled`)).body).toMatchObject({ activeVersion: 1 });
    // a change committed by "another node" whose event never arrived
    const owner = sut.service.app.get(DataSource);
    await owner.query(
      `UPDATE rule_sets SET active_version = 2, revision = revision + 1 WHERE tenant_id = 'acme' AND workflow_name = 'polled'`,
    );
    expect((await api.get(`${B}/cache/polled`)).body.activeVersion).toBe(1); // still cached
    expect(await sut.service.app.get(RuleSetCache).poll()).toBe(1);
    expect((await api.get(`${B}/cache/polled`)).body.activeVersion).toBe(2);
  });
});
