import { EventBus } from '@arbiter/platform';
import { partitionOf } from '@arbiter/event-windows';
import { ServiceUnderTest, startServiceForTest } from '@arbiter/testing';
import { randomUUID } from 'node:crypto';
import { decisionsService } from '../src';
import { cep } from './cep-client';

/**
 * Two replicas sharing the key space over NATS: replica A holds partitions 0-7, B 8-15 (of 16). Events
 * sent to either (HTTP or the inbound subject) end in the replica holding their key's partition, and a
 * key's window read on either is answered by the owner (request/reply on `rpc.cep.partition.<p>.window`).
 * Needs a real NATS (TEST_NATS_URL); the in-process bus does not cross services.
 */
const natsUrl = process.env.TEST_NATS_URL;
const describeWithNats = natsUrl ? describe : describe.skip;

describeWithNats('event windows partitioned over two replicas (NATS)', () => {
  let a: ServiceUnderTest;
  let b: ServiceUnderTest;
  const tenant = `t-${randomUUID().slice(0, 8)}`;
  const id = `p-${randomUUID().slice(0, 8)}`;
  beforeAll(async () => {
    const common = {
      'EventWindows:Partitions': '16',
      'EventWindows:ClockDelayMs': '60000',
      'EventWindows:ReplayMs': '60000',
      'EventWindows:ReadTimeoutMs': '1000',
    };
    a = await startServiceForTest(decisionsService, 'ConnectionStrings:DecisionTablesDb', {
      overrides: { ...common, 'EventWindows:OwnedPartitions': '0-7' },
    });
    b = await startServiceForTest(decisionsService, 'ConnectionStrings:DecisionTablesDb', {
      overrides: { ...common, 'EventWindows:OwnedPartitions': '8-15' },
    });
    const config = {
      Name: 'Partitioned',
      WindowType: 'Sliding',
      WindowSize: 'PT10M',
      TimeToLive: 'PT1H',
      CorrelationKey: 'userId',
    };
    // each replica may have its own test database: save the configuration in both
    for (const s of [a, b])
      expect([200, 201]).toContain((await cep(s.url, tenant).put(`/${id}`, config)).status);
  }, 180_000);
  afterAll(async () => {
    await a?.stop();
    await b?.stop();
  });

  async function windowOf(s: ServiceUnderTest, key: string, count: number) {
    let body: any;
    for (let i = 0; i < 100; i++) {
      body = (await cep(s.url, tenant).get(`/${id}/keys/${key}/window`)).body;
      if ((body.Window?.Count ?? 0) >= count) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    return body;
  }

  it('applies owned keys at once and forwards the others to the replica holding them', async () => {
    const keys = Array.from({ length: 20 }, (_, i) => `user-${i}`);
    const ownedByB = keys.filter((k) => partitionOf(k, 16) >= 8);
    expect(ownedByB.length).toBeGreaterThan(0);
    expect(ownedByB.length).toBeLessThan(keys.length);
    const now = Date.now();
    const Events = keys.flatMap((Key, i) => [
      { Key, Timestamp: new Date(now - 2000 + i).toISOString(), Value: 1 },
      { Key, Timestamp: new Date(now - 1000 + i).toISOString(), Value: 2 },
    ]);
    const res = await cep(a.url, tenant).post(`/${id}/events`, { Events });
    expect(res.status).toBe(200);
    expect(res.body.Forwarded).toBe(ownedByB.length * 2);
    expect(res.body.Accepted).toBe((keys.length - ownedByB.length) * 2);

    const onB = await windowOf(b, ownedByB[0], 2);
    expect(onB).toMatchObject({ Owned: true, Window: { Count: 2, Aggregates: { count: 2, sum: 3 } } });
    // read on the replica that does not hold the key: answered by the owner over NATS
    const onA = (await cep(a.url, tenant).get(`/${id}/keys/${ownedByB[0]}/window`)).body;
    expect(onA).toEqual({ ...onB, Owned: false });
    const ownedByA = keys.find((k) => partitionOf(k, 16) < 8)!;
    const fromA = await windowOf(a, ownedByA, 2);
    expect(fromA.Window).toMatchObject({ Count: 2 });
    const fromB = (await cep(b.url, tenant).get(`/${id}/keys/${ownedByA}/window`)).body;
    expect(fromB).toMatchObject({ Owned: false, Window: { Count: 2, Aggregates: { count: 2, sum: 3 } } });
    expect(fromB.Facts).toEqual(fromA.Facts);
  });

  it('routes the inbound subject arbiter.events.<tenant>.<config> through the queue group to the owners', async () => {
    const bus = a.service.app.get(EventBus);
    const now = Date.now();
    const keys = ['nats-1', 'nats-2', 'nats-3', 'nats-4', 'nats-5', 'nats-6'];
    await bus.publish(`arbiter.events.${tenant}.${id}`, {
      Events: keys.map((Key) => ({ Key, Timestamp: new Date(now).toISOString(), Value: 5 })),
    });
    for (const key of keys) {
      const owner = partitionOf(key, 16) < 8 ? a : b;
      const other = owner === a ? b : a;
      expect((await windowOf(owner, key, 1)).Window).toMatchObject({ Count: 1, Aggregates: { sum: 5 } });
      expect((await cep(other.url, tenant).get(`/${id}/keys/${key}/window`)).body).toMatchObject({
        Owned: false,
        Window: { Count: 1 },
      });
    }
  });

  it("answers 503 WINDOW_PARTITION_UNAVAILABLE when the owner of a key's partition is gone, 404 for another tenant", async () => {
    const key = Array.from({ length: 50 }, (_, i) => `gone-${i}`).find((k) => partitionOf(k, 16) >= 8)!;
    expect((await cep(a.url, 'someone-else').get(`/${id}/keys/${key}/window`)).status).toBe(404);
    await b.stop();
    b = undefined as unknown as ServiceUnderTest;
    const res = await cep(a.url, tenant).get(`/${id}/keys/${key}/window`);
    expect(res.status).toBe(503);
    expect(res.body.code).toBe('WINDOW_PARTITION_UNAVAILABLE');
  });
});
