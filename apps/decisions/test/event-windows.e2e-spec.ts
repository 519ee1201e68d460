import { EventBus, UnitOfWork } from '@arbiter/platform';
import { ServiceUnderTest, startServiceForTest } from '@arbiter/testing';
import { decisionsService } from '../src';
import { EventWindowMetrics } from '../src/event-windows';
import { EventWindowConfigRepository } from '../src/event-windows/persistence/event-window-config.repository';
import { cep } from './cep-client';

const failedLogins = {
  Name: 'Failed logins',
  WindowType: 'Sliding',
  WindowSize: 'PT10M',
  TimeToLive: '01:00:00',
  CorrelationKey: 'userId',
  Aggregates: ['count', 'sum', 'max', 'distinctCount', 'last'],
};

const at = (minutes: number, seconds = 0) =>
  new Date(Date.UTC(2026, 10, 28, 5, minutes, seconds)).toISOString();

describe('event windows (CEP) API', () => {
  let sut: ServiceUnderTest;
  let api: ReturnType<typeof cep>;
  const changes: any[] = [];
  beforeAll(async () => {
    sut = await startServiceForTest(decisionsService, 'ConnectionStrings:DecisionTablesDb', {
      overrides: { 'EventWindows:MaxBatchEvents': '20000' },
    });
    api = cep(sut.url);
    await sut.service.app
      .get(EventBus)
      .subscribe('arbiter.event-window.changed', (e) => void changes.push(e.data));
  }, 120_000);
  afterAll(() => sut?.stop());

  it('saves (201, then 200 with a new version), reads, lists by name and deletes configurations', async () => {
    const created = await api.put('/failed-logins', failedLogins);
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      Id: 'failed-logins',
      Name: 'Failed logins',
      WindowType: 'Sliding',
      WindowSize: 'PT10M',
      TimeToLive: 'PT1H',
      CorrelationKey: 'userId',
      TenantId: 'tenant-a',
      AllowedLateness: 'PT0S',
      ValuePath: null,
      Aggregates: ['count', 'sum', 'max', 'distinctCount', 'last'],
      EmitMode: 'OnUpdate',
      Version: 1,
      CreatedAt: expect.any(String),
      ModifiedAt: expect.any(String),
    });
    const updated = await api.put('/failed-logins', { ...failedLogins, TimeToLive: '1.00:00:00' });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ Version: 2, TimeToLive: 'P1D' });
    expect(
      (await api.put('/a-orders', { ...failedLogins, Name: 'Orders per hour', WindowType: 'Tumbling' }))
        .status,
    ).toBe(201);
    expect((await api.get('/failed-logins')).body).toMatchObject({ Version: 2, WindowSize: 'PT10M' });
    expect((await api.get('')).body.map((c: any) => c.Name)).toEqual(['Failed logins', 'Orders per hour']);

    // another tenant sees nothing of tenant-a's, and may use the same id for its own
    const other = cep(sut.url, 'tenant-b');
    expect((await other.get('')).body).toEqual([]);
    expect((await other.get('/failed-logins')).status).toBe(404);
    expect((await other.get('/failed-logins')).body.code).toBe('EVENT_WINDOW_NOT_FOUND');
    expect((await other.del('/failed-logins')).status).toBe(404);
    expect((await other.post('/failed-logins/simulate', { Events: [] })).status).toBe(404);
    expect((await other.put('/failed-logins', { ...failedLogins, Name: 'B' })).status).toBe(201);
    expect((await api.get('/failed-logins')).body.Name).toBe('Failed logins');

    expect((await api.del('/a-orders')).status).toBe(204);
    expect((await api.get('/a-orders')).status).toBe(404);
    expect((await api.del('/a-orders')).status).toBe(404);
    await new Promise((r) => setTimeout(r, 50));
    expect(changes).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          configId: 'failed-logins',
          tenantId: 'tenant-a',
          version: 1,
          change: 'created',
        }),
        expect.objectContaining({
          configId: 'failed-logins',
          tenantId: 'tenant-a',
          version: 2,
          change: 'updated',
        }),
        expect.objectContaining({
          configId: 'a-orders',
          tenantId: 'tenant-a',
          version: null,
          change: 'deleted',
        }),
      ]),
    );
  });

  it.each([
    [{ WindowSize: '10 minutes' }, 'INVALID_DURATION', 'WindowSize'],
    [{ WindowSize: '-PT10M' }, 'INVALID_DURATION', 'WindowSize'],
    [{ TimeToLive: 'P1M' }, 'INVALID_DURATION', 'TimeToLive'],
    [{ AllowedLateness: '00:99:00' }, 'INVALID_DURATION', 'AllowedLateness'],
    [{ WindowSize: 'PT0S' }, 'INVALID_WINDOW_SIZE', 'WindowSize'],
    [{ WindowSize: '00:00:00' }, 'INVALID_WINDOW_SIZE', 'WindowSize'],
    [{ WindowSize: 'PT2H', TimeToLive: 'PT1H' }, 'WINDOW_LONGER_THAN_TTL', 'WindowSize'],
    [{ EmitMode: 'OnClose' }, 'EMIT_MODE_NOT_SUPPORTED', 'EmitMode'],
    [{ TenantId: 'tenant-b' }, 'TENANT_MISMATCH', 'TenantId'],
    [{ WindowType: 'Hopping' }, 'VALIDATION_FAILED', 'WindowType'],
    [{ Aggregates: ['median'] }, 'VALIDATION_FAILED', 'Aggregates'],
    [{ WindowSize: undefined }, 'VALIDATION_FAILED', 'WindowSize'],
  ])('refuses %j with 400 %s naming %s', async (change, code, field) => {
    const res = await api.put('/hostile', { ...failedLogins, ...change });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe(code);
    expect(res.body.details.map((d: any) => d.field)).toContain(field);
    expect((await api.get('/hostile')).status).toBe(404);
  });

  it('takes concurrent saves of one id one after another: one creates it, the others update it', async () => {
    const saves = await Promise.all(
      Array.from({ length: 8 }, (_, i) => api.put('/raced', { ...failedLogins, Name: `raced ${i}` })),
    );
    expect(saves.map((r) => r.status).sort()).toEqual([200, 200, 200, 200, 200, 200, 200, 201]);
    expect(saves.map((r) => r.body.Version).sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect((await api.get('/raced')).body.Version).toBe(8);
  });

  it('refuses an id that cannot be a NATS subject token', async () => {
    const res = await api.put('/bad.id', failedLogins);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('INVALID_EVENT_WINDOW_ID');
  });

  it('simulates a sliding window: more than 5 failed logins of one user in 10 minutes', async () => {
    await api.put('/logins', { ...failedLogins, AllowedLateness: 'PT1M' });
    const Events = [
      ...[0, 2, 4, 6, 8].map((m) => ({ Key: 'alice', Timestamp: at(m), Value: 1 })),
      { Key: 'bob', Timestamp: at(9), Value: 1 },
      { Key: 'alice', Timestamp: at(9, 30), Value: 1 },
      { Key: 'alice', Timestamp: at(8, 45), Value: 1 }, // out of order, within the minute of lateness
      { Key: 'alice', Timestamp: at(7), Value: 1 }, // 2.5 minutes behind: late
      { Timestamp: at(11), Value: { userId: 'alice' } }, // key from Value.userId; value not numeric
    ];
    const res = await api.post('/logins/simulate', { Events, MaxContents: 3 });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ Processed: 10, Accepted: 9, Late: 1, Closed: [] });
    const r = res.body.Results;
    expect(r[6]).toEqual({
      Index: 6,
      Key: 'alice',
      Timestamp: at(9, 30),
      Status: 'Accepted',
      Window: {
        Key: 'alice',
        Start: at(-1, 30),
        End: at(9, 30),
        Count: 6,
        Aggregates: { count: 6, sum: 6, max: 1, distinctCount: 1, last: 1 },
        Events: [
          { Timestamp: at(6), Value: 1 },
          { Timestamp: at(8), Value: 1 },
          { Timestamp: at(9, 30), Value: 1 },
        ],
        Truncated: 3,
      },
    });
    expect(r[5].Window.Count).toBe(1); // bob's own window
    expect(r[7].Window).toMatchObject({ End: at(8, 45), Count: 6 }); // 0, 2, 4, 6, 8 and 8:45, not 9:30
    expect(r[8]).toEqual({ Index: 8, Key: 'alice', Timestamp: at(7), Status: 'Late' });
    // at 11:00 the event at 0 has slid out: 2, 4, 6, 8, 8:45, 9:30 and 11 (whose Value is not a number)
    expect(r[9].Window).toMatchObject({
      Key: 'alice',
      Count: 7,
      Aggregates: { count: 7, sum: 6, max: 1, distinctCount: 2, last: { userId: 'alice' } },
    });
    // nothing was stored: the live window of alice is empty
    expect((await api.get('/logins/keys/alice/window')).body.Window).toBeNull();
  });

  it('simulates with the configuration as it is now: a save or delete here, a change event from another replica', async () => {
    const Events = [0, 3, 6].map((m) => ({ Key: 'carol', Timestamp: at(m), Value: 1 }));
    await api.put('/reused', { ...failedLogins, WindowSize: 'PT10M' });
    expect((await api.post('/reused/simulate', { Events })).body.Results[2].Window.Count).toBe(3);
    // saved here: the next simulate reads the new size at once (the configuration a simulate reuses is dropped)
    await api.put('/reused', { ...failedLogins, WindowSize: 'PT2M' });
    expect((await api.post('/reused/simulate', { Events })).body.Results[2].Window.Count).toBe(1);
    // changed by another replica: its database row changes, then its change event arrives on the bus
    const app = sut.service.app;
    const repo = app.get(EventWindowConfigRepository);
    const stored = await app
      .get(UnitOfWork)
      .run((m) => repo.find(m, 'tenant-a', 'reused'), { tenantId: 'tenant-a' });
    await app
      .get(UnitOfWork)
      .run((m) => repo.update(m, { ...stored!, windowSizeMs: 5 * 60_000, version: stored!.version + 1 }), {
        tenantId: 'tenant-a',
      });
    await app.get(EventBus).publish(
      'arbiter.event-window.changed',
      {
        configId: 'reused',
        tenantId: 'tenant-a',
        version: stored!.version + 1,
        change: 'updated',
        occurredAt: new Date().toISOString(),
      },
      { tenantId: 'tenant-a' },
    );
    let count = 0;
    for (let i = 0; i < 25 && count !== 2; i++) {
      count = (await api.post('/reused/simulate', { Events })).body.Results[2].Window.Count;
      if (count !== 2) await new Promise((r) => setTimeout(r, 20));
    }
    expect(count).toBe(2); // 3 and 6 within five minutes
    // another tenant still gets a 404, and a deleted configuration is gone for the next simulate
    expect((await cep(sut.url, 'tenant-b').post('/reused/simulate', { Events })).status).toBe(404);
    expect((await api.del('/reused')).status).toBe(204);
    expect((await api.post('/reused/simulate', { Events })).status).toBe(404);
  });

  it('simulates tumbling windows emitted on close, closing on the clock (Now) without new events', async () => {
    await api.put('/orders', {
      Name: 'Orders',
      WindowType: 'Tumbling',
      WindowSize: 'PT5M',
      TimeToLive: 'PT30M',
      CorrelationKey: 'customer',
      ValuePath: 'order.amount',
      Aggregates: ['count', 'sum', 'avg', 'min', 'max'],
      EmitMode: 'OnClose',
    });
    const Events = [
      { Key: 'c1', Timestamp: at(0, 10), Value: { order: { amount: 10 } } },
      { Key: 'c1', Timestamp: at(3), Value: { order: { amount: 30 } } },
      { Key: 'c2', Timestamp: at(4), Value: { order: { amount: 5 } } },
      { Key: 'c1', Timestamp: at(6), Value: { order: { amount: 7 } } }, // closes c1's [0, 5)
    ];
    const res = await api.post('/orders/simulate', { Events, Now: at(20) });
    expect(res.status).toBe(200);
    expect(res.body.Results.every((x: any) => x.Status === 'Accepted' && !x.Window)).toBe(true);
    expect(res.body.Closed).toEqual([
      {
        Key: 'c1',
        Start: at(0),
        End: at(5),
        Count: 2,
        Aggregates: { count: 2, sum: 40, avg: 20, min: 10, max: 30 },
        Events: [
          { Timestamp: at(0, 10), Value: 10 },
          { Timestamp: at(3), Value: 30 },
        ],
        Truncated: 0,
      },
      expect.objectContaining({ Key: 'c1', Start: at(5), End: at(10), Count: 1 }),
      expect.objectContaining({ Key: 'c2', Start: at(0), End: at(5), Count: 1 }),
    ]);
    expect(res.body.Evicted).toBe(4);
  });

  it('refuses bad events with 400 naming the event and field, and oversized batches with 413', async () => {
    for (const [event, code, field] of [
      [{ Key: 'a', Timestamp: '28/11/2026 05:00', Value: 1 }, 'INVALID_TIMESTAMP', 'Events[1].Timestamp'],
      [{ Key: 'a', Timestamp: '2026-11-28T05:00:00', Value: 1 }, 'INVALID_TIMESTAMP', 'Events[1].Timestamp'],
      [{ Key: 'a', Timestamp: '0000-01-01T00:00:00Z', Value: 1 }, 'INVALID_TIMESTAMP', 'Events[1].Timestamp'],
      [{ Key: 'a', Timestamp: '2026-13-45T05:00:00Z', Value: 1 }, 'INVALID_TIMESTAMP', 'Events[1].Timestamp'],
      // a day its month does not have: refused, not rolled over into March
      [{ Key: 'a', Timestamp: '2026-02-30T05:00:00Z', Value: 1 }, 'INVALID_TIMESTAMP', 'Events[1].Timestamp'],
      [
        { Key: 'a', Timestamp: '2026-02-29T05:00:00+01:00', Value: 1 },
        'INVALID_TIMESTAMP',
        'Events[1].Timestamp',
      ],
      [{ Key: 'a', Timestamp: 1764306000000, Value: 1 }, 'INVALID_TIMESTAMP', 'Events[1].Timestamp'],
      [{ Timestamp: at(1), Value: 1 }, 'INVALID_EVENT', 'Events[1].Key'],
      [{ Key: 'x'.repeat(300), Timestamp: at(1) }, 'INVALID_EVENT', 'Events[1].Key'],
      ['not an event', 'INVALID_EVENT', 'Events[1]'],
    ] as const) {
      const res = await api.post('/logins/simulate', { Events: [{ Key: 'a', Timestamp: at(0) }, event] });
      expect([res.status, res.body.code, res.body.details?.[0]?.field]).toEqual([400, code, field]);
    }
    // deep in a large batch (read in slices of the event loop): the same 400 naming the event, nothing answered
    const large: unknown[] = Array.from({ length: 15_000 }, (_, i) => ({
      Key: `k${i % 10}`,
      Timestamp: at(0, i),
    }));
    large[14_999] = { Key: 'k', Timestamp: '2026-11-28T05:00:00+25:00' };
    const deep = await api.post('/logins/simulate', { Events: large });
    expect([deep.status, deep.body.code, deep.body.details?.[0]?.field]).toEqual([
      400,
      'INVALID_TIMESTAMP',
      'Events[14999].Timestamp',
    ]);
    const many = Array.from({ length: 20_001 }, () => ({ Key: 'k', Timestamp: at(0) }));
    const tooMany = await api.post('/logins/simulate', { Events: many });
    expect(tooMany.status).toBe(413);
    expect(tooMany.body.code).toBe('EVENT_BATCH_TOO_LARGE');
    expect((await api.post('/nope/simulate', { Events: [] })).status).toBe(404);
    expect((await api.post('/logins/simulate', { Events: 'x' })).status).toBe(400);
  });

  it('answers a simulated batch of 10,000 events', async () => {
    const Events = Array.from({ length: 10_000 }, (_, i) => ({
      Key: `u${i % 100}`,
      Timestamp: new Date(Date.UTC(2026, 10, 28) + i * 1000).toISOString(),
      Value: i % 7,
    }));
    const res = await api.post('/logins/simulate', { Events, MaxContents: 2 });
    expect(res.status).toBe(200);
    expect(res.body.Accepted).toBe(10_000);
    // u0 has an event every 100 s: 6 of them in 10 minutes (the one 600 s back is out)
    expect(res.body.Results[9_900].Window).toMatchObject({ Count: 6, Truncated: 4 });
  });

  it('lists the 3 most recent events of a window by default, more on request up to EventWindows:MaxContents', async () => {
    const Events = Array.from({ length: 120 }, (_, i) => ({ Key: 'k', Timestamp: at(0, i), Value: i }));
    const byDefault = (await api.post('/logins/simulate', { Events })).body.Results[119].Window;
    expect(byDefault).toMatchObject({ Count: 120, Truncated: 117 });
    expect(byDefault.Events).toEqual([117, 118, 119].map((i) => ({ Timestamp: at(0, i), Value: i })));
    // past the service's bound (100 by default) the answer lists that many; Truncated counts the rest
    const capped = (await api.post('/logins/simulate', { Events, MaxContents: 1000 })).body.Results[119]
      .Window;
    expect([capped.Events.length, capped.Truncated, capped.Events[0].Value]).toEqual([100, 20, 20]);
    const none = (await api.post('/logins/simulate', { Events, MaxContents: 0 })).body.Results[119].Window;
    expect([none.Events, none.Truncated, none.Count]).toEqual([[], 120, 120]);
    for (const MaxContents of [-1, 1001, 2.5, '3'])
      expect((await api.post('/logins/simulate', { Events, MaxContents })).status).toBe(400);
  });

  it("ingests live events and answers a key's window as rule facts; metrics count it all", async () => {
    const metrics = sut.service.app.get(EventWindowMetrics);
    const before = { ...metrics.totals };
    await api.put('/live-logins', { ...failedLogins, AllowedLateness: 'PT2S' });
    const now = Date.now();
    const Events = [1, 2, 3, 4, 5, 6].map((i) => ({
      Key: 'mallory',
      Timestamp: new Date(now - i * 100).toISOString(),
      Value: 1,
    }));
    // newest first: within the 2 s of allowed lateness behind the key's watermark
    // an hour old: behind the live clock (wall clock − EventWindows:ClockDelayMs) → late, not merged
    Events.push({ Key: 'mallory', Timestamp: new Date(now - 3_600_000).toISOString(), Value: 1 });
    const res = await api.post('/live-logins/events', { Events });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ Processed: 7, Accepted: 6, Late: 1, Forwarded: 0 });
    expect(res.body.Results[6].Status).toBe('Late');
    // each event's window ends at its own time: the oldest (sent last) sees only itself, the newest all six
    expect(res.body.Results[5].Window.Count).toBe(1);
    expect(res.body.Results[0].Window.Count).toBe(1);
    const w = await api.get('/live-logins/keys/mallory/window');
    expect(w.status).toBe(200);
    expect(w.body).toMatchObject({
      ConfigId: 'live-logins',
      Key: 'mallory',
      Owned: true,
      Window: { Count: 6, Aggregates: { count: 6, sum: 6 } },
      Facts: { window: { key: 'mallory', count: 6, sum: 6 } },
    });
    const nobody = await api.get('/live-logins/keys/nobody/window');
    expect(nobody.body).toMatchObject({ Window: null, Facts: { window: { count: 0, sum: 0 } } });
    expect((await cep(sut.url, 'tenant-b').get('/live-logins/keys/mallory/window')).status).toBe(404);
    // a saved change drops the live windows (new definition, new windows)
    await api.put('/live-logins', { ...failedLogins, WindowSize: 'PT5M' });
    await new Promise((r) => setTimeout(r, 50));
    expect((await api.get('/live-logins/keys/mallory/window')).body.Window).toBeNull();

    expect(metrics.totals.processed - before.processed).toBe(7);
    expect(metrics.totals.late - before.late).toBe(1);
    expect(metrics.totals.evaluations - before.evaluations).toBeGreaterThanOrEqual(7);
    expect(metrics.totals.writes - before.writes).toBe(2);
    expect(metrics.totals.reads - before.reads).toBeGreaterThanOrEqual(4);
  });

  it('takes live events from NATS subject arbiter.events.<tenant>.<config>', async () => {
    await api.put('/nats-logins', failedLogins);
    const bus = sut.service.app.get(EventBus);
    await bus.publish('arbiter.events.tenant-a.nats-logins', {
      Events: [{ Key: 'eve', Timestamp: new Date().toISOString(), Value: 3 }],
    });
    let body: any;
    for (let i = 0; i < 50; i++) {
      body = (await api.get('/nats-logins/keys/eve/window')).body;
      if (body.Window) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(body.Window).toMatchObject({ Count: 1, Aggregates: { sum: 3 } });
  });
});
