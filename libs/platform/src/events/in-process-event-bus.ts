import { Logger } from '@nestjs/common';
import { inServiceScopeOfCaller } from '../logging/service-logger';
import type { CloudEvent } from '@arbiter/contracts';
import {
  assertRequestSubject,
  BusRequestError,
  BusStatus,
  createCloudEvent,
  errorReply,
  inRequestContext,
  ReplyEnvelope,
  RequestHandler,
  RequestOptions,
  unwrapReply,
  EventBus,
  EventHandler,
  EventSubscription,
  PayloadOf,
  PublishOptions,
  SubscribeOptions,
  subjectMatches,
} from './event-bus';

interface Registration {
  pattern: string;
  handler: EventHandler<any>;
  queue?: string;
  /** runs a delivery as the subscribing service's work (its logger, not the publisher's) */
  inSubscriberContext: <T>(fn: () => T) => T;
}

/**
 * The single-node bus used when `ConnectionStrings:Cache` is empty: same contract as NATS, handlers run
 * asynchronously after `publish` resolves, a failing handler is logged and never affects the publisher.
 */
export class InProcessEventBus extends EventBus {
  private readonly logger = new Logger('EventBus');
  private readonly registrations = new Set<Registration>();
  private readonly queueCursor = new Map<string, number>();
  private readonly pending = new Set<Promise<void>>();

  constructor(private readonly source: string) {
    super();
  }

  async publish<S extends string>(subject: S, data: PayloadOf<S>, options?: PublishOptions): Promise<void> {
    this.deliver(createCloudEvent(this.source, subject, data, options));
  }

  /** Delivers an event built elsewhere (also used by the launcher to share one bus between apps). */
  deliver(event: CloudEvent): void {
    const matching = [...this.registrations].filter((r) => subjectMatches(r.pattern, event.type));
    const groups = new Map<string, Registration[]>();
    const targets: Registration[] = [];
    for (const r of matching) {
      if (!r.queue) targets.push(r);
      else groups.set(r.queue, [...(groups.get(r.queue) ?? []), r]);
    }
    for (const [queue, members] of groups) {
      const cursor = this.queueCursor.get(queue) ?? 0;
      targets.push(members[cursor % members.length]);
      this.queueCursor.set(queue, cursor + 1);
    }
    for (const target of targets) {
      const run = new Promise<void>((resolve) => setImmediate(resolve))
        .then(() => target.inSubscriberContext(() => target.handler(event)))
        .catch((error) =>
          this.logger.error({ msg: 'event handler failed', subject: event.type, err: String(error) }),
        )
        .finally(() => this.pending.delete(run));
      this.pending.add(run);
    }
  }

  async subscribe<S extends string>(
    subject: S,
    handler: EventHandler<PayloadOf<S>>,
    options: SubscribeOptions = {},
  ): Promise<EventSubscription> {
    const registration: Registration = {
      pattern: subject,
      handler,
      queue: options.queue,
      inSubscriberContext: inServiceScopeOfCaller(),
    };
    this.registrations.add(registration);
    // nothing is kept in process: a replay has nothing to deliver
    options.onReplayed?.();
    return { unsubscribe: async () => void this.registrations.delete(registration) };
  }

  private readonly responders = new Map<
    string,
    { handler: RequestHandler<any>; inContext: <T>(fn: () => T) => T }[]
  >();

  async request<R = unknown>(subject: string, data: unknown, options: RequestOptions = {}): Promise<R> {
    assertRequestSubject(subject);
    const members = this.responders.get(subject);
    if (!members?.length) throw new BusRequestError('NO_RESPONDER', `no service answers ${subject}`);
    const cursor = this.queueCursor.get(`rpc:${subject}`) ?? 0;
    this.queueCursor.set(`rpc:${subject}`, cursor + 1);
    const target = members[cursor % members.length];
    // the request travels as JSON, as on NATS: nothing is shared between caller and responder
    const event = JSON.parse(
      JSON.stringify(createCloudEvent(this.source, subject, data, options)),
    ) as CloudEvent;
    const timeoutMs = options.timeoutMs ?? 5000;
    let timer: NodeJS.Timeout | undefined;
    const reply = await Promise.race([
      new Promise<void>((resolve) => setImmediate(resolve))
        .then(() => target.inContext(() => inRequestContext(event, () => target.handler(event))))
        .then(
          (value): ReplyEnvelope => ({ ok: true, data: value === undefined ? null : value }),
          (error: unknown) => errorReply(error),
        ),
      new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new BusRequestError('TIMEOUT', `${subject}: no answer within ${timeoutMs} ms`)),
          timeoutMs,
        );
      }),
    ]).finally(() => clearTimeout(timer));
    return unwrapReply<R>(subject, JSON.parse(JSON.stringify(reply)) as ReplyEnvelope);
  }

  async respond<T = unknown>(subject: string, handler: RequestHandler<T>): Promise<EventSubscription> {
    assertRequestSubject(subject);
    const entry = { handler, inContext: inServiceScopeOfCaller() };
    this.responders.set(subject, [...(this.responders.get(subject) ?? []), entry]);
    return {
      unsubscribe: async () =>
        void this.responders.set(
          subject,
          (this.responders.get(subject) ?? []).filter((e) => e !== entry),
        ),
    };
  }

  status(): BusStatus {
    return { kind: 'in-process', connected: true };
  }

  /** Waits for handlers already started, then drops every subscription. */
  async close(): Promise<void> {
    await Promise.allSettled([...this.pending]);
    this.registrations.clear();
    this.responders.clear();
  }
}
