const ROUTES = Symbol.for('arbiter.registeredRoutes');

/** One route Fastify serves: its method and its path in OpenAPI syntax (`/rulesets/{workflowName}`). */
export interface RegisteredRoute {
  method: string;
  path: string;
}

/** Starts recording every route registered on a Fastify instance (Nest's, the hot routes, the docs'). */
export function recordRoutes(fastify: any): void {
  const routes: RegisteredRoute[] = [];
  fastify[ROUTES] = routes;
  fastify.addHook('onRoute', (route: { method: string | string[]; url: string }) => {
    for (const method of [route.method].flat()) {
      if (method === 'HEAD') continue; // Fastify adds HEAD beside each GET
      routes.push({ method, path: route.url.replace(/:([A-Za-z0-9_]+)/g, '{$1}') });
    }
  });
}

/** The routes a started service serves (for the test that every one is in the OpenAPI document). */
export function registeredRoutes(app: { getHttpAdapter(): { getInstance(): any } }): RegisteredRoute[] {
  return [...(app.getHttpAdapter().getInstance()[ROUTES] ?? [])];
}
