import { Inject, MiddlewareConsumer, Module, NestModule, Optional } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { RequestContextMiddleware } from '../context/request-context.middleware';

/** Set on a Fastify instance by `createHttpApp`, which opens the request context in an `onRequest` hook. */
export const REQUEST_CONTEXT_HOOK = Symbol.for('arbiter.requestContextHook');

/**
 * Installs the first step of every request pipeline: the request context (tenant, actor, correlation).
 * Apps hosted by `createHttpApp` get it as a Fastify hook (cheaper: no middie path match per request);
 * any other Nest app importing this module gets it as middleware.
 */
@Module({})
export class PlatformHttpModule implements NestModule {
  constructor(@Optional() @Inject(HttpAdapterHost) private readonly adapterHost?: HttpAdapterHost) {}

  configure(consumer: MiddlewareConsumer): void {
    const instance = this.adapterHost?.httpAdapter?.getInstance?.() as Record<symbol, unknown> | undefined;
    if (instance?.[REQUEST_CONTEXT_HOOK]) return;
    consumer.apply(RequestContextMiddleware).forRoutes('{*path}');
  }
}
