import { randomUUID } from 'node:crypto';
import { AppError } from '../src/errors/app-error';
import { BusRequestError, EventBus } from '../src/events/event-bus';
import { InProcessEventBus } from '../src/events/in-process-event-bus';
import { NatsEventBus } from '../src/events/nats-event-bus';
import { RequestContext } from '../src/context/request-context';

const natsUrl = process.env.TEST_NATS_URL?.trim();

type Factory = () => Promise<EventBus>;
const implementations: [string, Factory][] = [['in-process', async () => new InProcessEventBus('test')]];
if (natsUrl)
  implementations.push([
    'NATS',
    async () => {
      const bus = new NatsEventBus({ servers: [natsUrl], source: 'test' });
      expect(await bus.whenConnected()).toBe(true);
      return bus;
    },
  ]);

describe.each(implementations)('EventBus request/reply (%s)', (_name, create) => {
  let bus: EventBus;
  const area = `rpc.test${randomUUID().slice(0, 8)}`;
  beforeAll(async () => {
    bus = await create();
  });
  afterAll(async () => {
    await bus.close();
  });

  it("answers with the responder's value, in the requester's tenant", async () => {
    await bus.respond<{ n: number }>(`${area}.double`, (e) => ({
      doubled: e.data.n * 2,
      tenant: RequestContext.tenantId(),
    }));
    const reply = await RequestContext.run({ tenantId: 'acme' }, () =>
      bus.request<{ doubled: number; tenant: string }>(`${area}.double`, { n: 21 }),
    );
    expect(reply).toEqual({ doubled: 42, tenant: 'acme' });
  });

  it("carries the responder's application error back (status and code)", async () => {
    await bus.respond(`${area}.missing`, () => {
      throw AppError.notFound('RULESET_NOT_FOUND', 'no such workflow');
    });
    const error = await bus.request(`${area}.missing`, {}).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BusRequestError);
    expect(error).toMatchObject({
      reason: 'REMOTE_ERROR',
      remote: { status: 404, code: 'RULESET_NOT_FOUND' },
    });
  });

  it('says when nobody answers, and refuses subjects inside the event stream', async () => {
    const error = await bus.request(`${area}.nobody`, {}, { timeoutMs: 1500 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BusRequestError);
    expect(['NO_RESPONDER', 'TIMEOUT']).toContain((error as BusRequestError).reason);
    await expect(bus.request('arbiter.x.y', {})).rejects.toThrow(/rpc\./);
  });

  it('times out a slow responder', async () => {
    await bus.respond(`${area}.slow`, () => new Promise((r) => setTimeout(() => r('late'), 3000).unref()));
    const error = await bus.request(`${area}.slow`, {}, { timeoutMs: 200 }).catch((e: unknown) => e);
    expect(error).toMatchObject({ reason: 'TIMEOUT' });
  });
});
