import { EventBus } from '@arbiter/platform';
import { createTestDatabase, ServiceUnderTest, startServiceForTest, TestDatabase } from '@arbiter/testing';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { decisionsService } from '../src';
import { EventWindowMetrics } from '../src/event-windows';
import { cep } from './cep-client';

/**
 * A restart rebuilds the live windows from the JetStream stream: events sent over HTTP and over the
 * inbound subject, a late one and an out-of-order one, then the service is stopped and started again on
 * the same database; every key's window (count, aggregates, contents) is what it was. Needs a real NATS
 * with JetStream (TEST_NATS_URL): in process nothing is kept, and a restart starts with empty windows.
 */
const natsUrl = process.env.TEST_NATS_URL;
const describeWithNats = natsUrl ? describe : describe.skip;
const DB_KEY = 'ConnectionStrings:DecisionTablesDb';

describeWithNats('event windows rebuilt from the stream after a restart (NATS)', () => {
  const tenant = `t-${randomUUID().slice(0, 8)}`;
  const sliding = `s-${randomUUID().slice(0, 8)}`;
  const session = `g-${randomUUID().slice(0, 8)}`;
  let database: TestDatabase | undefined;
  let dir: string | undefined;
  let dbUrl: string;
  let running: ServiceUnderTest | undefined;
  const overrides = () => ({
    [DB_KEY]: dbUrl,
    'EventWindows:ClockDelayMs': '60000',
    'EventWindows:ReplayMs': '600000',
  });

  beforeAll(async () => {
    if (process.env.TEST_DATABASE_URL) {
      database = await createTestDatabase();
      dbUrl = database.url;
    } else {
      dir = mkdtempSync(join(tmpdir(), 'cep-restart-'));
      dbUrl = `pglite://${dir}`;
    }
  });
  afterAll(async () => {
    if (running) await stopKeepingDatabase(running);
    await database?.drop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** Stops the service; the database it was started on (ours, by override) stays for the restart. */
  async function stopKeepingDatabase(s: ServiceUnderTest) {
    await s.service.close();
    await s.database.drop(); // the one it made and never used
  }

  const keys = ['alice', 'bob', 'carol', 'dave', 'erin', 'frank'];

  async function windows(url: string) {
    const out: Record<string, unknown> = {};
    for (const id of [sliding, session])
      for (const key of keys) {
        const res = await cep(url, tenant).get(`/${id}/keys/${key}/window`);
        expect(res.status).toBe(200);
        // a sliding window's bounds follow the clock (now − size, now]: everything else must be equal
        const { Start, End, ...window } = res.body.Window ?? {};
        const { start, end, ...facts } = res.body.Facts.window;
        out[`${id}/${key}`] = { window, facts, bounds: id === session ? { Start, End, start, end } : null };
      }
    return out;
  }

  it('gives every key the same window after the service restarts', async () => {
    running = await startServiceForTest(decisionsService, DB_KEY, { overrides: overrides() });
    const api = cep(running.url, tenant);
    const base = {
      TimeToLive: 'PT1H',
      AllowedLateness: 'PT1M',
      CorrelationKey: 'userId',
      Aggregates: ['count', 'sum', 'max', 'last'],
    };
    expect(
      (await api.put(`/${sliding}`, { ...base, Name: 'Sliding', WindowType: 'Sliding', WindowSize: 'PT10M' }))
        .status,
    ).toBe(201);
    expect(
      (await api.put(`/${session}`, { ...base, Name: 'Session', WindowType: 'Session', WindowSize: 'PT5M' }))
        .status,
    ).toBe(201);

    const now = Date.now();
    const ts = (ms: number) => new Date(now - ms).toISOString();
    for (const id of [sliding, session]) {
      const Events = keys.flatMap((Key, i) => [
        { Key, Timestamp: ts(30_000 - i), Value: i + 1 },
        { Key, Timestamp: ts(20_000), Value: 10 * (i + 1) },
        { Key, Timestamp: ts(25_000), Value: 'x' }, // out of order, not a number
      ]);
      Events.push({ Key: 'alice', Timestamp: ts(2 * 3600_000), Value: 1000 }); // late: never merged
      const res = await api.post(`/${id}/events`, { Events });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ Accepted: keys.length * 3, Late: 1 });
      // and over the inbound subject (routed through the queue group to the partition's stream subject)
      await running.service.app.get(EventBus).publish(`arbiter.events.${tenant}.${id}`, {
        Events: keys.map((Key) => ({ Key, Timestamp: ts(10_000), Value: 7 })),
      });
    }
    let before: Record<string, any> = {};
    for (let i = 0; i < 100; i++) {
      before = await windows(running.url);
      if (Object.values(before).every((w: any) => w.window.Count === 4)) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(before[`${sliding}/alice`]).toMatchObject({
      window: { Count: 4, Aggregates: { count: 4, sum: 18, max: 10, last: 7 } },
      facts: { key: 'alice', count: 4, sum: 18, max: 10 },
    });
    expect(Object.values(before).every((w: any) => w.window.Count === 4)).toBe(true);

    await stopKeepingDatabase(running);
    running = await startServiceForTest(decisionsService, DB_KEY, { overrides: overrides() });
    const after = await windows(running.url);
    expect(after).toEqual(before);
    // the late event stayed late on replay, and the replay was counted
    const metrics = running.service.app.get(EventWindowMetrics).totals;
    expect(metrics.late).toBeGreaterThanOrEqual(2);
    expect(metrics.processed).toBeGreaterThanOrEqual(2 * keys.length * 4 + 2);
  }, 120_000);
});
