import { Logger } from '@nestjs/common';
import { SpanKind, trace } from '@opentelemetry/api';
import type { CloudEvent } from '@arbiter/contracts';
import { AckPolicy, DeliverPolicy, jetstream, JetStreamClient, jetstreamManager } from '@nats-io/jetstream';
import { connect, headers as natsHeaders, NatsConnection, Subscription } from '@nats-io/transport-node';
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
  RespondOptions,
  unwrapReply,
  EventBus,
  EventHandler,
  EventSubscription,
  isCloudEvent,
  PayloadOf,
  PublishOptions,
  SubscribeOptions,
} from './event-bus';

export interface NatsEventBusOptions {
  servers: string[];
  /** Service name, used as the CloudEvents source and the connection name. */
  source: string;
  /** JetStream stream capturing `arbiter.>` so durable consumers survive restarts. */
  streamName?: string;
  /** How long the stream keeps events (ms). */
  streamMaxAgeMs?: number;
  /** Events published before the first connection are kept (up to this many) and sent on connect. */
  maxBufferedBeforeConnect?: number;
}

interface Pending {
  subject: string;
  event: CloudEvent;
}

interface HeldBack {
  subject: string;
  payload: string;
  id: string;
  headers: ReturnType<typeof natsHeaders>;
}

interface Wanted {
  subject: string;
  handler: EventHandler<any>;
  /** a responder: the handler's value (or error) is sent back to the requester */
  responder?: RequestHandler<any>;
  options: SubscribeOptions;
  active?: { stop(): Promise<void>; kind: 'core' | 'durable' | 'resume' };
  cancelled?: boolean;
  /** `resume`: the stream sequence of the last event handled, and the stream it belongs to. */
  cursor?: { streamCreated: string; seq: number };
  /** `replayFrom`: `onReplayed` was called. */
  replayed?: boolean;
}

const STREAM_SUBJECTS = 'arbiter.>';
const tracer = trace.getTracer('@arbiter/platform/events');

/**
 * NATS implementation (`@nats-io/transport-node`, the client Nest's NATS transport uses too).
 * Connects in the background and never blocks startup or a request: while NATS is down, publishes
 * are buffered by the client (or by us before the first connection), subscriptions are re-established
 * on reconnect, and the status is reported to /health. Subjects under `arbiter.>` go to a JetStream
 * stream, so `durable` subscribers get what was published while they were away, and `resume`
 * subscribers (every node) read on from their last stream sequence after a reconnect.
 */
export class NatsEventBus extends EventBus {
  private readonly logger = new Logger('EventBus');
  private connection: NatsConnection | null = null;
  private js: JetStreamClient | null = null;
  private streamReady = false;
  /** JetStream answered once: `arbiter.*` events are then held back while it is away, never dropped. */
  private jetStreamKnown = false;
  private readonly heldBack: HeldBack[] = [];
  private heldBackCount = 0;
  private flushing: Promise<void> | undefined;
  private reconnecting: Promise<void> = Promise.resolve();
  private connected = false;
  private closed = false;
  private lastError: string | undefined;
  private readonly beforeConnect: Pending[] = [];
  private readonly wanted = new Set<Wanted>();
  private readonly ready: Promise<void>;
  private readonly streamName: string;
  private retryTimer: NodeJS.Timeout | undefined;
  private wakeRetry: (() => void) | undefined;

  constructor(private readonly options: NatsEventBusOptions) {
    super();
    this.streamName = options.streamName ?? 'ARBITER';
    this.ready = this.connectInBackground();
  }

  /** Resolves once the first connection is up (tests and health use it; the app never waits on it). */
  whenConnected(timeoutMs = 10_000): Promise<boolean> {
    return Promise.race([
      this.ready.then(() => this.connected),
      new Promise<boolean>((resolve) => setTimeout(() => resolve(false), timeoutMs).unref()),
    ]);
  }

  private async connectInBackground(): Promise<void> {
    // First connection: our own retry loop (cancellable by close), so an unreachable NATS neither
    // blocks startup nor keeps a closed bus alive. After that the client reconnects by itself.
    let nc: NatsConnection | null = null;
    let attempt = 0;
    while (!this.closed && !nc) {
      try {
        nc = await connect({
          servers: this.options.servers,
          name: this.options.source,
          reconnect: true,
          maxReconnectAttempts: -1,
          reconnectTimeWait: 1000,
          timeout: 2000,
          pingInterval: 10_000,
        });
      } catch (error) {
        this.lastError = (error as Error).message;
        if (attempt++ % 30 === 0) {
          this.logger.warn({
            msg: 'NATS unreachable; retrying',
            servers: this.options.servers,
            err: this.lastError,
          });
        }
        await new Promise<void>((resolve) => {
          this.retryTimer = setTimeout(resolve, Math.min(2000, 250 * attempt));
          this.wakeRetry = resolve;
        });
      }
    }
    if (!nc) return;
    if (this.closed) {
      await nc.close().catch(() => undefined);
      return;
    }
    this.connection = nc;
    this.connected = true;
    this.logger.log({ msg: 'NATS connected', server: nc.getServer() });
    void this.watchStatus(nc);
    await this.ensureStream(nc);
    for (const w of this.wanted) await this.activate(w);
    for (const p of this.beforeConnect.splice(0)) await this.send(p.subject, p.event);
  }

  private async watchStatus(nc: NatsConnection) {
    for await (const s of nc.status()) {
      if (s.type === 'disconnect') {
        this.connected = false;
        this.logger.warn({
          msg: 'NATS disconnected; reconnecting',
          server: (s as { server?: string }).server,
        });
      } else if (s.type === 'reconnect') {
        this.connected = true;
        this.logger.log({ msg: 'NATS reconnected', server: (s as { server?: string }).server });
        // chained, so the status loop goes on (a new disconnect is seen) and reconnects never overlap
        this.reconnecting = this.reconnecting.then(() => this.onReconnect(nc)).catch(() => undefined);
      } else if (s.type === 'error') {
        this.lastError = String((s as { error?: unknown }).error);
        this.logger.warn({ msg: 'NATS error', err: this.lastError });
      }
    }
  }

  private async ensureStream(nc: NatsConnection): Promise<boolean> {
    try {
      const jsm = await jetstreamManager(nc, { timeout: 5000 });
      const config = {
        name: this.streamName,
        subjects: [STREAM_SUBJECTS],
        max_age: (this.options.streamMaxAgeMs ?? 24 * 3600_000) * 1_000_000,
      };
      try {
        await jsm.streams.info(this.streamName);
        await jsm.streams.update(this.streamName, { subjects: config.subjects, max_age: config.max_age });
      } catch {
        await jsm.streams.add(config);
      }
      this.js = jetstream(nc);
      this.streamReady = true;
      this.jetStreamKnown = true;
      return true;
    } catch (error) {
      this.streamReady = false;
      this.lastError = `JetStream unavailable: ${(error as Error).message}`;
      this.logger.warn({
        msg: 'JetStream unavailable; using core NATS only (no durable delivery)',
        err: String(error),
      });
      return false;
    }
  }

  /**
   * Back after a disconnect: JetStream of a restarted server may need a moment (messages published
   * before it has loaded its streams are not stored), so the stream is awaited (~10 s), then the
   * events held back meanwhile are published to it in order, then every `resume` subscription reads
   * on from its last sequence, then the reconnect listeners run.
   */
  private async onReconnect(nc: NatsConnection): Promise<void> {
    let ready = false;
    for (let i = 0; i < 20 && !ready && !this.closed && this.connected; i++) {
      ready = await this.ensureStream(nc);
      if (!ready) await new Promise((r) => setTimeout(r, 500));
    }
    await this.flushHeldBack();
    for (const w of this.wanted)
      if ((w.options.resume || w.options.replayFrom !== undefined) && !w.cancelled) {
        const old = w.active;
        w.active = undefined;
        void old?.stop().catch(() => undefined);
        await this.activate(w).catch((error: Error) =>
          this.logger.warn({
            msg: 'resume subscription not re-established',
            subject: w.subject,
            err: String(error),
          }),
        );
      }
    await this.notifyReconnected();
  }

  /**
   * Publishes the held-back events to the stream, oldest first, each acknowledged by JetStream
   * (`Nats-Msg-Id` makes a repeat harmless). Stops at the first failure and keeps the rest for the
   * next reconnect; without JetStream they go out on core NATS (best effort).
   */
  private flushHeldBack(): Promise<void> {
    this.flushing ??= (async () => {
      try {
        while (this.heldBack.length && this.connected && !this.closed) {
          const next = this.heldBack[0];
          if (this.js && this.streamReady) {
            try {
              await this.js.publish(next.subject, next.payload, {
                msgID: next.id,
                headers: next.headers,
                timeout: 2000,
              });
            } catch (error) {
              this.logger.warn({
                msg: 'held-back event not yet stored; kept for the next reconnect',
                subject: next.subject,
                waiting: this.heldBack.length,
                err: String(error),
              });
              return;
            }
          } else this.connection!.publish(next.subject, next.payload, { headers: next.headers });
          this.heldBack.shift();
        }
        if (this.heldBackCount > 0 && this.heldBack.length === 0) {
          this.logger.log({ msg: 'events held back during the outage published', count: this.heldBackCount });
          this.heldBackCount = 0;
        }
      } finally {
        this.flushing = undefined;
      }
    })();
    return this.flushing;
  }

  private holdBack(subject: string, payload: string, id: string, headers: ReturnType<typeof natsHeaders>) {
    const max = this.options.maxBufferedBeforeConnect ?? 10_000;
    if (this.heldBack.length >= max) {
      const dropped = this.heldBack.shift();
      this.logger.error({
        msg: 'NATS unavailable: held-back event buffer full, oldest event dropped',
        subject: dropped?.subject,
      });
    }
    this.heldBack.push({ subject, payload, id, headers });
    this.heldBackCount++;
  }

  async publish<S extends string>(subject: S, data: PayloadOf<S>, options?: PublishOptions): Promise<void> {
    // No NATS instrumentation exists for OpenTelemetry: a PRODUCER span per publish, whose context
    // travels in the CloudEvent `traceparent` (and the message header) to the consumer's span.
    return tracer.startActiveSpan(
      `${subject} publish`,
      {
        kind: SpanKind.PRODUCER,
        attributes: { 'messaging.system': 'nats', 'messaging.destination.name': subject },
      },
      async (span) => {
        try {
          await this.publishInSpan(subject, data, options);
        } finally {
          span.end();
        }
      },
    );
  }

  private async publishInSpan(subject: string, data: unknown, options?: PublishOptions): Promise<void> {
    const event = createCloudEvent(this.options.source, subject, data, options);
    if (!this.connection) {
      const max = this.options.maxBufferedBeforeConnect ?? 10_000;
      if (this.beforeConnect.length >= max) {
        const dropped = this.beforeConnect.shift();
        this.logger.error({
          msg: 'NATS not connected: event buffer full, oldest event dropped',
          subject: dropped?.subject,
        });
      }
      this.beforeConnect.push({ subject, event });
      return;
    }
    await this.send(subject, event);
  }

  private async send(subject: string, event: CloudEvent) {
    const nc = this.connection!;
    const payload = JSON.stringify(event);
    const h = natsHeaders();
    h.set('Nats-Msg-Id', event.id);
    if (event.traceparent) h.set('traceparent', event.traceparent);
    const durable = subject.startsWith('arbiter.') && this.jetStreamKnown;
    if (durable && (!this.connected || !this.streamReady || !this.js || this.heldBack.length > 0)) {
      // NATS (or its JetStream) is away: the client's reconnect buffer would flush these before a
      // restarted server has loaded its stream, and they would reach no one. Kept in order here and
      // published to the stream once it is back.
      this.holdBack(subject, payload, event.id, h);
      if (this.connected && this.streamReady) void this.flushHeldBack();
      return;
    }
    if (!durable) {
      // Core publish: while reconnecting, the client buffers it and sends it on reconnect.
      nc.publish(subject, payload, { headers: h });
      return;
    }
    try {
      await this.js!.publish(subject, payload, { msgID: event.id, headers: h, timeout: 2000 });
    } catch (error) {
      // No acknowledgement (NATS going away): held back and published again on reconnect
      // (`Nats-Msg-Id` deduplicates it if the first one was stored after all).
      this.logger.warn({
        msg: 'JetStream publish failed; held back until NATS returns',
        subject,
        err: String(error),
      });
      this.holdBack(subject, payload, event.id, h);
    }
  }

  async subscribe<S extends string>(
    subject: S,
    handler: EventHandler<PayloadOf<S>>,
    options: SubscribeOptions = {},
  ): Promise<EventSubscription> {
    const wanted: Wanted = { subject, handler, options };
    this.wanted.add(wanted);
    if (this.connection) await this.activate(wanted);
    return {
      unsubscribe: async () => {
        wanted.cancelled = true;
        this.wanted.delete(wanted);
        await wanted.active?.stop();
      },
    };
  }

  async request<R = unknown>(subject: string, data: unknown, options: RequestOptions = {}): Promise<R> {
    assertRequestSubject(subject);
    const nc = this.connection;
    if (!nc || !this.connected)
      throw new BusRequestError('UNAVAILABLE', `NATS is not connected (${subject})`);
    const event = createCloudEvent(this.options.source, subject, data, options);
    const timeoutMs = options.timeoutMs ?? 5000;
    let reply: ReplyEnvelope;
    try {
      const m = await nc.request(subject, JSON.stringify(event), { timeout: timeoutMs });
      reply = JSON.parse(new TextDecoder().decode(m.data)) as ReplyEnvelope;
    } catch (error) {
      const text = String((error as Error).message ?? error);
      if (/no responders|503/i.test(text) || (error as { code?: string }).code === '503')
        throw new BusRequestError('NO_RESPONDER', `no service answers ${subject}`);
      if (/timeout/i.test(text) || (error as Error).name === 'TimeoutError')
        throw new BusRequestError('TIMEOUT', `${subject}: no answer within ${timeoutMs} ms`);
      throw new BusRequestError('UNAVAILABLE', `${subject}: ${text}`);
    }
    return unwrapReply<R>(subject, reply);
  }

  async respond<T = unknown>(
    subject: string,
    handler: RequestHandler<T>,
    options: RespondOptions = {},
  ): Promise<EventSubscription> {
    assertRequestSubject(subject);
    const wanted: Wanted = {
      subject,
      handler: () => undefined,
      responder: handler,
      options: { queue: options.queue ?? subject },
    };
    this.wanted.add(wanted);
    if (this.connection) await this.activate(wanted);
    return {
      unsubscribe: async () => {
        wanted.cancelled = true;
        this.wanted.delete(wanted);
        await wanted.active?.stop();
      },
    };
  }

  private decode(data: Uint8Array, subject: string): CloudEvent | null {
    try {
      const parsed = JSON.parse(new TextDecoder().decode(data));
      return isCloudEvent(parsed) ? parsed : { ...createCloudEvent('unknown', subject, parsed), id: 'raw' };
    } catch {
      this.logger.warn({ msg: 'dropping undecodable message', subject });
      return null;
    }
  }

  private async dispatch(w: Wanted, event: CloudEvent) {
    try {
      await w.handler(event);
      return true;
    } catch (error) {
      this.logger.error({ msg: 'event handler failed', subject: event.type, err: String(error) });
      return false;
    }
  }

  /**
   * A `resume` subscription: an ordered consumer on the stream, filtered on the subject, from the
   * sequence after the last event handled (new events only the first time). A stream that was
   * recreated (another `created` time: the server lost its store) is read from its start.
   */
  private async activateResume(w: Wanted) {
    const jsm = await jetstreamManager(this.connection!, { timeout: 5000 });
    const info = await jsm.streams.info(this.streamName);
    const created = String(info.created);
    const replayFrom = w.options.replayFrom;
    const from =
      w.cursor && w.cursor.streamCreated === created
        ? { deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: w.cursor.seq + 1 }
        : w.cursor
          ? { deliver_policy: DeliverPolicy.All }
          : replayFrom !== undefined
            ? { deliver_policy: DeliverPolicy.StartTime, opt_start_time: new Date(replayFrom).toISOString() }
            : { deliver_policy: DeliverPolicy.New };
    if (w.cursor && w.cursor.streamCreated !== created) w.cursor = { streamCreated: created, seq: 0 };
    // a replay is over once the last event stored for the subject now (if any, and recent enough) is handled
    let replayUntil = 0;
    if (replayFrom !== undefined && !w.replayed) {
      const last = await jsm.streams
        .getMessage(this.streamName, { last_by_subj: w.subject })
        .catch(() => null);
      if (last && last.time.getTime() >= replayFrom) replayUntil = last.seq;
    }
    const replayDone = () => {
      if (w.replayed) return;
      w.replayed = true;
      w.options.onReplayed?.();
    };
    const consumer = await this.js!.consumers.get(this.streamName, { filter_subjects: w.subject, ...from });
    const messages = await consumer.consume({ max_messages: 256 });
    w.cursor ??= { streamCreated: created, seq: replayFrom !== undefined ? 0 : info.state.last_seq };
    const cursor = w.cursor;
    if (replayUntil === 0 || cursor.seq >= replayUntil) replayDone();
    void (async () => {
      try {
        for await (const m of messages) {
          const seq = m.info.streamSequence;
          if (seq <= cursor.seq) continue; // already handled (a consumer reset delivers again)
          cursor.seq = seq;
          const event = this.decode(m.data, m.subject);
          if (event) await this.dispatch(w, event);
          if (seq >= replayUntil) replayDone();
        }
      } catch (error) {
        this.logger.warn({ msg: 'resume subscription stopped', subject: w.subject, err: String(error) });
      }
    })();
    w.active = { kind: 'resume', stop: async () => void (await messages.close()) };
  }

  private async activate(w: Wanted) {
    const nc = this.connection!;
    const replaying = w.options.replayFrom !== undefined;
    if ((w.options.resume || replaying) && this.streamReady && w.subject.startsWith('arbiter.')) {
      // Right after a server restart JetStream may need a moment: a resume is retried for ~5 s
      // before falling back to core NATS (the next reconnect tries again).
      const attempts = w.cursor ? 20 : 1;
      let lastError: unknown;
      for (let i = 0; i < attempts && !w.cancelled && !this.closed; i++) {
        try {
          await this.activateResume(w);
          return;
        } catch (error) {
          lastError = error;
          if (i + 1 < attempts) await new Promise((r) => setTimeout(r, 250));
        }
      }
      this.logger.warn({
        msg: 'JetStream consumer unavailable; subscribing on core NATS (re-tried on reconnect)',
        subject: w.subject,
        err: String(lastError),
      });
    }
    if (w.options.durable && this.streamReady && w.subject.startsWith('arbiter.')) {
      const jsm = await jetstreamManager(nc);
      const durable = w.options.durable.replace(/[^A-Za-z0-9_-]/g, '_');
      try {
        await jsm.consumers.info(this.streamName, durable);
      } catch {
        await jsm.consumers.add(this.streamName, {
          durable_name: durable,
          filter_subject: w.subject,
          ack_policy: AckPolicy.Explicit,
          deliver_policy: DeliverPolicy.New,
          ack_wait: 30_000_000_000,
          max_deliver: 5,
        });
      }
      const consumer = await this.js!.consumers.get(this.streamName, durable);
      const messages = await consumer.consume({ max_messages: 256 });
      void (async () => {
        for await (const m of messages) {
          const event = this.decode(m.data, m.subject);
          if (!event) {
            m.term();
            continue;
          }
          if (await this.dispatch(w, event)) m.ack();
          else m.nak(1000);
        }
      })();
      w.active = { kind: 'durable', stop: async () => void (await messages.close()) };
      return;
    }
    if (replaying && !w.replayed) {
      // no JetStream: nothing to replay
      w.replayed = true;
      w.options.onReplayed?.();
    }
    const sub: Subscription = nc.subscribe(w.subject, {
      queue: w.options.queue,
      callback: (err, m) => {
        if (err) return;
        const event = this.decode(m.data, m.subject);
        if (w.responder) {
          const responder = w.responder;
          void (async (): Promise<ReplyEnvelope> => {
            if (!event) return { ok: false, error: { message: 'undecodable request' } };
            try {
              const value: unknown = await inRequestContext(event, () => responder(event));
              return { ok: true, data: value === undefined ? null : value };
            } catch (error) {
              return errorReply(error);
            }
          })().then((reply) => m.respond(JSON.stringify(reply)));
          return;
        }
        if (event) void this.dispatch(w, event);
      },
    });
    w.active = { kind: 'core', stop: async () => sub.unsubscribe() };
  }

  status(): BusStatus {
    return {
      kind: 'nats',
      connected: this.connected,
      ...(this.connected ? {} : { detail: this.lastError ?? 'connecting' }),
    };
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retryTimer);
    this.wakeRetry?.();
    const nc = this.connection;
    if (!nc) return;
    try {
      await nc.drain();
    } catch {
      await nc.close().catch(() => undefined);
    }
  }
}
