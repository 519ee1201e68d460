import type { CloudEvent } from '@arbiter/contracts';
import { randomUUID } from 'node:crypto';
import { EventBus } from '../src/events/event-bus';
import { InProcessEventBus } from '../src/events/in-process-event-bus';
import { NatsEventBus } from '../src/events/nats-event-bus';
import { RequestContext } from '../src/context/request-context';

const natsUrl = process.env.TEST_NATS_URL?.trim();

function waitFor<T>(probe: () => T | undefined, timeoutMs = 5000): Promise<T> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const tick = () => {
      const value = probe();
      if (value !== undefined) return resolve(value);
      if (Date.now() - started > timeoutMs) return reject(new Error('timed out'));
      setTimeout(tick, 10);
    };
    tick();
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

type Factory = () => Promise<EventBus>;

const implementations: [string, Factory][] = [['in-process', async () => new InProcessEventBus('test')]];
if (natsUrl) {
  implementations.push([
    'NATS',
    async () => {
      const bus = new NatsEventBus({ servers: [natsUrl], source: 'test' });
      expect(await bus.whenConnected()).toBe(true);
      return bus;
    },
  ]);
}

describe.each(implementations)('EventBus contract (%s)', (_name, create) => {
  let bus: EventBus;
  // Unique subjects per run: a shared NATS server and a JetStream stream outlive the test.
  const area = `test${randomUUID().slice(0, 8)}`;

  beforeAll(async () => {
    bus = await create();
  });
  afterAll(async () => {
    await bus.close();
  });

  it('delivers a CloudEvent with the payload, subject, source and request context', async () => {
    const received: CloudEvent[] = [];
    await bus.subscribe(`arbiter.${area}.saved`, (e) => void received.push(e));
    await RequestContext.run({ tenantId: 'acme', correlationId: 'corr-1' }, () =>
      bus.publish(`arbiter.${area}.saved`, { workflowName: 'pricing', version: 3 }),
    );
    const [event] = await waitFor(() => (received.length ? received : undefined));
    expect(event).toMatchObject({
      specversion: '1.0',
      type: `arbiter.${area}.saved`,
      source: 'test',
      tenantid: 'acme',
      correlationid: 'corr-1',
      datacontenttype: 'application/json',
      data: { workflowName: 'pricing', version: 3 },
    });
    expect(event.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(new Date(event.time).toString()).not.toBe('Invalid Date');
  });

  it('matches wildcards and keeps other subjects apart', async () => {
    const all: string[] = [];
    const one: string[] = [];
    await bus.subscribe(`arbiter.${area}w.>`, (e) => void all.push(e.type));
    await bus.subscribe(`arbiter.${area}w.*.changed`, (e) => void one.push(e.type));
    await bus.publish(`arbiter.${area}w.table.changed`, {});
    await bus.publish(`arbiter.${area}w.table.deleted`, {});
    await waitFor(() => (all.length === 2 ? all : undefined));
    await sleep(50);
    expect(one).toEqual([`arbiter.${area}w.table.changed`]);
  });

  it('gives each event to one member of a queue group', async () => {
    const a: number[] = [];
    const b: number[] = [];
    await bus.subscribe(`arbiter.${area}.work`, (e) => void a.push((e.data as { n: number }).n), {
      queue: 'workers',
    });
    await bus.subscribe(`arbiter.${area}.work`, (e) => void b.push((e.data as { n: number }).n), {
      queue: 'workers',
    });
    for (let n = 0; n < 20; n++) await bus.publish(`arbiter.${area}.work`, { n });
    await waitFor(() => (a.length + b.length === 20 ? true : undefined));
    await sleep(50);
    expect([...a, ...b].sort((x, y) => x - y)).toEqual([...Array(20).keys()]);
  });

  it('isolates a failing handler from the publisher and the other handlers', async () => {
    const ok: unknown[] = [];
    await bus.subscribe(`arbiter.${area}.boom`, () => {
      throw new Error('handler failure');
    });
    await bus.subscribe(`arbiter.${area}.boom`, (e) => void ok.push(e.data));
    await expect(bus.publish(`arbiter.${area}.boom`, { x: 1 })).resolves.toBeUndefined();
    await waitFor(() => (ok.length ? ok : undefined));
  });

  it('stops delivering after unsubscribe', async () => {
    const got: unknown[] = [];
    const sub = await bus.subscribe(`arbiter.${area}.unsub`, (e) => void got.push(e.data));
    await sub.unsubscribe();
    await bus.publish(`arbiter.${area}.unsub`, {});
    await sleep(100);
    expect(got).toEqual([]);
  });
});

(natsUrl ? describe : describe.skip)('NATS specifics', () => {
  it('delivers events published while a durable subscriber was down (JetStream)', async () => {
    const subject = `arbiter.durable${randomUUID().slice(0, 8)}.changed`;
    const durable = `test-${randomUUID().slice(0, 8)}`;
    const first = new NatsEventBus({ servers: [natsUrl!], source: 'first' });
    await first.whenConnected();
    const early: unknown[] = [];
    await first.subscribe(subject, (e) => void early.push(e.data), { durable });
    await first.close();

    const publisher = new NatsEventBus({ servers: [natsUrl!], source: 'publisher' });
    await publisher.whenConnected();
    await publisher.publish(subject, { n: 1 });
    await publisher.publish(subject, { n: 2 });

    const restarted = new NatsEventBus({ servers: [natsUrl!], source: 'restarted' });
    await restarted.whenConnected();
    const late: unknown[] = [];
    await restarted.subscribe(subject, (e) => void late.push(e.data), { durable });
    await waitFor(() => (late.length >= 2 ? late : undefined));
    expect(late).toEqual([{ n: 1 }, { n: 2 }]);
    await publisher.close();
    await restarted.close();
  });

  it('replays what the stream holds from replayFrom, in order, calls onReplayed, then goes on live', async () => {
    const subject = `arbiter.replay${randomUUID().slice(0, 8)}.part`;
    const publisher = new NatsEventBus({ servers: [natsUrl!], source: 'publisher' });
    await publisher.whenConnected();
    for (let n = 1; n <= 3; n++) await publisher.publish(subject, { n });
    const reader = new NatsEventBus({ servers: [natsUrl!], source: 'reader' });
    await reader.whenConnected();
    const got: unknown[] = [];
    let replayedAt = -1;
    await reader.subscribe(subject, (e) => void got.push(e.data), {
      replayFrom: Date.now() - 60_000,
      onReplayed: () => (replayedAt = got.length),
    });
    await waitFor(() => (replayedAt >= 0 ? true : undefined));
    expect(replayedAt).toBe(3);
    await publisher.publish(subject, { n: 4 });
    await waitFor(() => (got.length >= 4 ? got : undefined));
    expect(got).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }, { n: 4 }]);
    // nothing stored for a subject: replayed at once
    let empty = false;
    await reader.subscribe(`${subject}.none`, () => undefined, {
      replayFrom: Date.now() - 60_000,
      onReplayed: () => (empty = true),
    });
    await waitFor(() => (empty ? true : undefined));
    await publisher.close();
    await reader.close();
  });
});

describe('replayFrom in process', () => {
  it('keeps nothing: onReplayed at once, new events only', async () => {
    const bus = new InProcessEventBus('test');
    let replayed = false;
    const got: unknown[] = [];
    await bus.subscribe('arbiter.x.y', (e) => void got.push(e.data), {
      replayFrom: 0,
      onReplayed: () => (replayed = true),
    });
    expect(replayed).toBe(true);
    await bus.publish('arbiter.x.y', { n: 1 });
    await waitFor(() => (got.length ? got : undefined));
    expect(got).toEqual([{ n: 1 }]);
    await bus.close();
  });
});

describe('NATS outage', () => {
  it('keeps serving when NATS is unreachable: publish resolves, status reports down', async () => {
    const bus = new NatsEventBus({ servers: ['nats://127.0.0.1:1'], source: 'offline' });
    await expect(bus.publish('arbiter.offline.changed', { n: 1 })).resolves.toBeUndefined();
    expect(bus.status()).toMatchObject({ kind: 'nats', connected: false });
    await bus.close();
  });
});
