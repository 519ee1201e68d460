import type { CloudEvent } from '@arbiter/contracts';
import { context, propagation, SpanKind, trace } from '@opentelemetry/api';
import { CustomTransportStrategy, BaseRpcContext, Server } from '@nestjs/microservices';
import { RequestContext } from '../context/request-context';
import { EventBus, EventSubscription } from './event-bus';

const tracer = trace.getTracer('@arbiter/platform/events');

/** Runs a handler in a CONSUMER span, child of the publisher's span when the event carries one. */
function withConsumerSpan<T>(event: CloudEvent, run: () => Promise<T>): Promise<T> {
  const parent = event.traceparent
    ? propagation.extract(context.active(), { traceparent: event.traceparent })
    : context.active();
  return tracer.startActiveSpan(
    `${event.type} process`,
    {
      kind: SpanKind.CONSUMER,
      attributes: { 'messaging.system': 'arbiter-bus', 'messaging.message.id': event.id },
    },
    parent,
    async (span) => {
      try {
        return await run();
      } finally {
        span.end();
      }
    },
  );
}

/** Context handed to `@EventPattern` handlers: the whole CloudEvent (tenant, correlation, id). */
export class BusEventContext extends BaseRpcContext<[CloudEvent]> {
  get event(): CloudEvent {
    return this.getArgByIndex(0);
  }
}

/**
 * Nest's microservice transport over the platform EventBus, so event handlers are ordinary
 * `@EventPattern('arbiter.ruleset.changed', { durable: 'control-plane-cache' })` methods, whichever bus
 * (NATS or in-process) is configured. The handler receives the event's `data` and a BusEventContext,
 * and runs inside a request context carrying the event's tenant and correlation id.
 */
export class EventBusTransport extends Server implements CustomTransportStrategy {
  private readonly subscriptions: EventSubscription[] = [];

  constructor(private readonly bus: EventBus) {
    super();
  }

  async listen(callback: (error?: unknown) => void): Promise<void> {
    try {
      for (const [pattern, handler] of this.messageHandlers) {
        if (!handler.isEventHandler) continue;
        const extras = handler.extras ?? {};
        const subscription = await this.bus.subscribe(
          pattern,
          (event) =>
            withConsumerSpan(event, () =>
              RequestContext.run({ tenantId: event.tenantid, correlationId: event.correlationid }, () =>
                this.handleEvent(pattern, { pattern, data: event.data }, new BusEventContext([event])),
              ),
            ),
          { durable: extras.durable, queue: extras.queue, resume: extras.resume === true },
        );
        this.subscriptions.push(subscription);
      }
      callback();
    } catch (error) {
      callback(error);
    }
  }

  async close(): Promise<void> {
    await Promise.all(this.subscriptions.splice(0).map((s) => s.unsubscribe()));
  }

  on(): never {
    throw new Error('EventBusTransport does not expose transport events');
  }

  unwrap<T>(): T {
    return this.bus as T;
  }
}
