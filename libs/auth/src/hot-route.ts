import { HotRouteDefinition, registerHotRoute } from '@arbiter/platform';
import type { AuthPipeline } from './auth.guard';

/**
 * Registers a hot route (`registerHotRoute`: a Fastify route plus the fast path in front of Fastify) whose
 * requests first pass the same authorization pipeline as every Nest route (authentication → license →
 * quota → permissions, with the given requirements). With authentication off the handler is called
 * directly (a synchronous result stays synchronous). Call it from `onApplicationBootstrap` with Nest's HTTP
 * adapter (`HttpAdapterHost.httpAdapter`).
 */
export function registerAuthorizedHotRoute(
  adapter: unknown,
  auth: AuthPipeline,
  route: HotRouteDefinition,
  requirements?: Parameters<AuthPipeline['authorize']>[1],
): void {
  registerHotRoute(adapter, {
    ...route,
    handle: auth.active
      ? async (request) => {
          await auth.authorize(request, requirements);
          return route.handle(request);
        }
      : route.handle,
  });
}
