import { MiddlewareConsumer, Module, NestModule } from '@nestjs/common';
import { RequestContextMiddleware } from '../context/request-context.middleware';

/** Installs the first step of every request pipeline: the request context (tenant, actor, correlation). */
@Module({})
export class PlatformHttpModule implements NestModule {
  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(RequestContextMiddleware).forRoutes('{*path}');
  }
}
