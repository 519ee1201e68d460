import { HotRouteDefinition, registerHotRoute } from '@arbiter/platform';
import type { AuthPipeline } from './auth.guard';

/**
 * Registers a Fastify-native hot route (`registerHotRoute`) whose requests first pass the same
 * authorization pipeline as every Nest route (authentication → license → quota → permissions, with the
 * given requirements). Call it from `onApplicationBootstrap` with the instance of `HttpAdapterHost`.
 */
export function registerAuthorizedHotRoute(
  fastify: unknown,
  auth: AuthPipeline,
  route: HotRouteDefinition,
  requirements?: Parameters<AuthPipeline['authorize']>[1],
): void {
  if (!fastify) return;
  registerHotRoute(fastify, {
    ...route,
    handle: async (request) => {
      if (auth.enabled) await auth.authorize(request, requirements);
      return route.handle(request);
    },
  });
}
