import type { CloudEvent, EventPayloads } from '@arbiter/contracts';
import { context, propagation } from '@opentelemetry/api';
import { randomUUID } from 'node:crypto';
import { RequestContext } from '../context/request-context';

export type PayloadOf<S extends string> = S extends keyof EventPayloads ? EventPayloads[S] : unknown;

export type EventHandler<T = unknown> = (event: CloudEvent<T>) => Promise<void> | void;

export interface PublishOptions {
  tenantId?: string;
  correlationId?: string;
}

export interface SubscribeOptions {
  /**
   * Durable consumer name: on NATS a JetStream consumer, so events published while this node was down
   * are delivered when it comes back. Ignored in process.
   */
  durable?: string;
  /** Queue group: each event goes to one member of the group (work sharing between replicas). */
  queue?: string;
  /**
   * Every node receives every event (no queue group) and none is lost to an outage: on NATS the
   * subscription reads the JetStream stream through an ordered consumer and, after a reconnect,
   * resumes from the stream sequence after the last event it handled (events published while NATS
   * was down reach the stream when the publishers' connections flush). In process: a plain subscription.
   */
  resume?: boolean;
  /**
   * Replay, then live: on NATS with JetStream, an ordered consumer first delivers the events the stream
   * still holds for the subject from this time (epoch ms), then the new ones, in stream order; after a
   * reconnect it reads on from the last event handled (like `resume`). Without JetStream, and in process,
   * nothing is kept: a plain subscription (new events only).
   */
  replayFrom?: number;
  /**
   * With `replayFrom`: called once, when every event the stream held for the subject when the subscription
   * started has been handled (at once when there was none, or nothing is kept).
   */
  onReplayed?: () => void;
}

export interface EventSubscription {
  unsubscribe(): Promise<void>;
}

export interface BusStatus {
  kind: 'nats' | 'in-process';
  connected: boolean;
  detail?: string;
}

/** Answers a request (`respond`): the value is the reply; a thrown error is sent back as the reply's error. */
export type RequestHandler<T = unknown> = (event: CloudEvent<T>) => Promise<unknown> | unknown;

export interface RequestOptions extends PublishOptions {
  /** how long to wait for the reply (default 5000 ms) */
  timeoutMs?: number;
}

export interface RespondOptions {
  /** queue group: each request is answered by one replica (default: the subject) */
  queue?: string;
}

/** The reply of a request as it travels: the value, or the responder's error (status and code when it had them). */
export type ReplyEnvelope =
  { ok: true; data: unknown } | { ok: false; error: { status?: number; code?: string; message: string } };

/**
 * A request that got no answer: nobody serves the subject (`NO_RESPONDER`), the answer did not come in
 * time (`TIMEOUT`), the bus is not connected (`UNAVAILABLE`), or the responder failed (`REMOTE_ERROR`, with
 * the responder's status and code when it threw an application error).
 */
export class BusRequestError extends Error {
  constructor(
    readonly reason: 'NO_RESPONDER' | 'TIMEOUT' | 'UNAVAILABLE' | 'REMOTE_ERROR',
    message: string,
    readonly remote?: { status?: number; code?: string },
  ) {
    super(message);
    this.name = 'BusRequestError';
  }
}

/** Request subjects live under `rpc.`: outside the `arbiter.>` stream, so JetStream never answers them. */
export function assertRequestSubject(subject: string): void {
  if (!subject.startsWith('rpc.'))
    throw new Error(`request subjects start with 'rpc.' (outside the event stream): '${subject}'`);
}

/** Runs a responder in the requester's tenant and correlation (carried by the request's CloudEvent). */
export function inRequestContext<T>(event: CloudEvent, fn: () => T): T {
  return RequestContext.run(
    {
      ...(event.tenantid ? { tenantId: event.tenantid } : {}),
      ...(event.correlationid ? { correlationId: event.correlationid } : {}),
    },
    fn,
  );
}

/** What a responder's failure becomes on the wire. */
export function errorReply(error: unknown): ReplyEnvelope {
  const e = error as { status?: unknown; code?: unknown; message?: unknown };
  return {
    ok: false,
    error: {
      ...(typeof e?.status === 'number' ? { status: e.status } : {}),
      ...(typeof e?.code === 'string' ? { code: e.code } : {}),
      message: typeof e?.message === 'string' ? e.message : String(error),
    },
  };
}

/** The value of a reply, or its error as a BusRequestError. */
export function unwrapReply<R>(subject: string, reply: ReplyEnvelope): R {
  if (reply.ok) return reply.data as R;
  throw new BusRequestError('REMOTE_ERROR', `${subject}: ${reply.error.message}`, {
    status: reply.error.status,
    code: reply.error.code,
  });
}

/**
 * Publish/subscribe between services and replicas, CloudEvents envelope on subjects
 * `arbiter.<area>.<event>`. Subscriptions accept NATS wildcards (`*` one token, `>` the rest).
 */
export abstract class EventBus {
  abstract publish<S extends string>(subject: S, data: PayloadOf<S>, options?: PublishOptions): Promise<void>;
  abstract subscribe<S extends string>(
    subject: S,
    handler: EventHandler<PayloadOf<S>>,
    options?: SubscribeOptions,
  ): Promise<EventSubscription>;
  /** Request/reply (not stored, not retried): the answer of one responder of `subject` (`rpc.…`). */
  abstract request<R = unknown>(subject: string, data: unknown, options?: RequestOptions): Promise<R>;
  /** Serves requests on `subject` (`rpc.…`); replicas share them (queue group). */
  abstract respond<T = unknown>(
    subject: string,
    handler: RequestHandler<T>,
    options?: RespondOptions,
  ): Promise<EventSubscription>;
  abstract status(): BusStatus;
  abstract close(): Promise<void>;

  private readonly reconnectListeners = new Set<() => void | Promise<void>>();

  /**
   * Called each time the bus comes back after it was disconnected (NATS), once its subscriptions are
   * re-established: a node re-reads what it may have missed at once. Never called in process.
   * Returns the function that removes the listener.
   */
  onReconnected(listener: () => void | Promise<void>): () => void {
    this.reconnectListeners.add(listener);
    return () => void this.reconnectListeners.delete(listener);
  }

  /** Runs the reconnect listeners (each failure is the listener's own, never the bus's). */
  protected async notifyReconnected(): Promise<void> {
    for (const listener of [...this.reconnectListeners])
      await Promise.resolve()
        .then(listener)
        .catch(() => undefined);
  }
}

export function createCloudEvent<T>(
  source: string,
  subject: string,
  data: T,
  options: PublishOptions = {},
): CloudEvent<T> {
  const ambient = RequestContext.current();
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  const tenantId = options.tenantId ?? ambient?.tenantId;
  const correlationId = options.correlationId ?? ambient?.correlationId;
  return {
    specversion: '1.0',
    id: randomUUID(),
    source,
    type: subject,
    time: new Date().toISOString(),
    datacontenttype: 'application/json',
    ...(tenantId ? { tenantid: tenantId } : {}),
    ...(correlationId ? { correlationid: correlationId } : {}),
    ...(carrier.traceparent ? { traceparent: carrier.traceparent } : {}),
    data,
  };
}

/** NATS subject matching: `*` matches one token, `>` one or more trailing tokens. */
export function subjectMatches(pattern: string, subject: string): boolean {
  if (pattern === subject) return true;
  const p = pattern.split('.');
  const s = subject.split('.');
  for (let i = 0; i < p.length; i++) {
    if (p[i] === '>') return s.length > i;
    if (i >= s.length) return false;
    if (p[i] !== '*' && p[i] !== s[i]) return false;
  }
  return p.length === s.length;
}

export function isCloudEvent(value: unknown): value is CloudEvent {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as CloudEvent).specversion === '1.0' &&
    typeof (value as CloudEvent).type === 'string' &&
    'data' in value
  );
}
