import { Subjects } from '@arbiter/contracts';
import { EventBus, NatsEventBus } from '@arbiter/platform';
import { createTestDatabase, TestDatabase } from '@arbiter/testing';
import { RunningPlatform, startPlatform } from '../src/commands/start';

describe('arbiter start (all services in one process)', () => {
  let platform: RunningPlatform;
  const databases: TestDatabase[] = [];

  beforeAll(async () => {
    const db = async () => {
      const d = await createTestDatabase();
      databases.push(d);
      return d.url;
    };
    const env = {
      ConnectionStrings__RuleControlPlaneDb: await db(),
      ConnectionStrings__DecisionTablesDb: await db(),
      ConnectionStrings__LicenseDb: await db(),
      ...(process.env.TEST_NATS_URL ? { ConnectionStrings__Cache: process.env.TEST_NATS_URL } : {}),
    };
    platform = await startPlatform({
      env,
      host: '127.0.0.1',
      ports: { 'control-plane': 0, decisions: 0, identity: 0 },
      serviceOptions: {
        'control-plane': { environment: 'Testing' },
        decisions: { environment: 'Testing' },
        identity: { environment: 'Testing' },
      },
    });
  });

  afterAll(async () => {
    await platform?.stop();
    for (const d of databases) await d.drop();
  });

  it('brings up control-plane, decisions and identity, each healthy on its own database', async () => {
    expect(platform.services.map((s) => s.name)).toEqual(['control-plane', 'decisions', 'identity']);
    const targets = new Set<string>();
    for (const service of platform.services) {
      const res = await fetch(`${service.url}/health`);
      expect(res.status).toBe(200);
      const body: any = await res.json();
      expect(body.service).toBe(service.name);
      targets.add(body.checks.database.target);
    }
    // Three separate databases (in-memory PGlite instances all describe themselves the same way).
    if (process.env.TEST_DATABASE_URL) expect(targets.size).toBe(3);
    else expect([...targets]).toEqual(['pglite://memory']);
  });

  it('lets the services reach each other over one event bus', async () => {
    const [controlPlane, decisions] = platform.services;
    for (const service of [controlPlane, decisions]) {
      const bus = service.app.get(EventBus);
      if (bus instanceof NatsEventBus) expect(await bus.whenConnected(10_000)).toBe(true);
    }
    const received: any[] = [];
    await decisions.app.get(EventBus).subscribe(Subjects.RuleSetChanged, (e) => void received.push(e.data));
    // A NATS subscription reaches the server asynchronously: publish until the first one arrives.
    const deadline = Date.now() + 5000;
    while (!received.length && Date.now() < deadline) {
      await controlPlane.app.get(EventBus).publish(Subjects.RuleSetChanged, {
        workflowName: 'pricing',
        tenantId: 'default',
        version: 1,
        change: 'saved',
        revision: 1,
        actor: 'test',
        occurredAt: new Date().toISOString(),
      });
      for (let i = 0; i < 20 && !received.length; i++) await new Promise((r) => setTimeout(r, 10));
    }
    expect(received[0]).toEqual(expect.objectContaining({ workflowName: 'pricing', change: 'saved' }));
  });
});

describe('arbiter start failures', () => {
  it('stops the services already started when a later one fails, and reports why', async () => {
    await expect(
      startPlatform({
        env: {
          ConnectionStrings__RuleControlPlaneDb: 'pglite://memory',
          ConnectionStrings__DecisionTablesDb: 'pglite://memory',
        },
        host: '127.0.0.1',
        ports: { 'control-plane': 0, decisions: 0, identity: 0 },
        serviceOptions: {
          'control-plane': { environment: 'Testing' },
          decisions: { environment: 'Testing' },
          identity: { environment: 'Production' },
        },
      }),
    ).rejects.toThrow(/LicenseDb|TokenConfigs/);
  });
});
