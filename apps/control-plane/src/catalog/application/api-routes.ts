import { PERMISSIONS_KEY, POLICIES_KEY, PUBLIC_KEY, type PermissionRequirement } from '@arbiter/auth';
import { Inject, Injectable, RequestMethod } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { DiscoveryService, HttpAdapterHost, MetadataScanner } from '@nestjs/core';

export interface ApiRoute {
  method: string;
  /** OpenAPI-style template: `/api/v1/rule-catalog/{code}`. */
  path: string;
  summary: string | null;
  tags: string[];
  /** Policies the route requires (`cp.viewer`, …); `public` for public routes; empty when none. */
  policies: string[];
}

const HIDDEN = /^\/docs($|[/-])/;
const template = (path: string) => path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
const join = (...parts: string[]) =>
  '/' +
  parts
    .flatMap((p) => p.split('/'))
    .filter(Boolean)
    .join('/');
const asList = (value: unknown): string[] =>
  value === undefined ? [''] : (Array.isArray(value) ? value : [value]).map(String);

/**
 * The control plane's own HTTP API, from the router: every route registered on Fastify (Nest controller
 * routes and Fastify-native ones, recorded by an `onRoute` hook installed before the router is built),
 * described with the Nest metadata of its handler (swagger summary or response description, tags,
 * required policies, and the key of a required permission). HEAD routes and the OpenAPI document routes are left out.
 */
@Injectable()
export class ApiRouteCatalog {
  private readonly recorded: { method: string; path: string }[] = [];

  constructor(
    @Inject(HttpAdapterHost) adapterHost: HttpAdapterHost,
    @Inject(DiscoveryService) private readonly discovery: DiscoveryService,
    @Inject(MetadataScanner) private readonly scanner: MetadataScanner,
  ) {
    const fastify = adapterHost.httpAdapter?.getInstance?.() as
      | {
          addHook?: (
            name: 'onRoute',
            hook: (route: { method: string | string[]; url: string }) => void,
          ) => void;
        }
      | undefined;
    fastify?.addHook?.('onRoute', (route) => {
      for (const method of asList(route.method).map((m) => m.toUpperCase()))
        if (method !== 'HEAD' && !HIDDEN.test(route.url))
          this.recorded.push({ method, path: template(route.url) });
    });
  }

  list(): ApiRoute[] {
    const described = this.nestRoutes();
    const routes = new Map<string, ApiRoute>();
    for (const route of described) routes.set(`${route.method} ${route.path}`, route);
    for (const { method, path } of this.recorded)
      if (!routes.has(`${method} ${path}`))
        routes.set(`${method} ${path}`, { method, path, summary: null, tags: [], policies: [] });
    return [...routes.values()].sort(
      (a, b) => a.path.localeCompare(b.path) || a.method.localeCompare(b.method),
    );
  }

  /** Routes of the Nest controllers, with their metadata. */
  private nestRoutes(): ApiRoute[] {
    const out: ApiRoute[] = [];
    for (const wrapper of this.discovery.getControllers()) {
      const type = wrapper.metatype as (new (...args: unknown[]) => object) | undefined;
      if (!type?.prototype) continue;
      const classPaths = asList(Reflect.getMetadata(PATH_METADATA, type));
      const classTags: string[] = Reflect.getMetadata('swagger/apiUseTags', type) ?? [];
      for (const name of this.scanner.getAllMethodNames(type.prototype)) {
        const handler = type.prototype[name as keyof object] as unknown as object;
        const methodPath = Reflect.getMetadata(PATH_METADATA, handler);
        if (methodPath === undefined) continue;
        const verb = RequestMethod[Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod] ?? 'GET';
        const operation = Reflect.getMetadata('swagger/apiOperation', handler) as
          { summary?: string } | undefined;
        const responses = (Reflect.getMetadata('swagger/apiResponse', handler) ?? {}) as Record<
          string,
          { description?: string }
        >;
        const summary =
          operation?.summary ?? Object.values(responses).find((r) => r.description)?.description ?? null;
        const isPublic = Reflect.getMetadata(PUBLIC_KEY, handler) ?? Reflect.getMetadata(PUBLIC_KEY, type);
        const policies: string[] = isPublic
          ? ['public']
          : [
              ...(Reflect.getMetadata(POLICIES_KEY, type) ?? []),
              ...(Reflect.getMetadata(POLICIES_KEY, handler) ?? []),
              // a route decided by a permission (the node-wide metrics) lists its key
              ...((Reflect.getMetadata(PERMISSIONS_KEY, handler) ?? []) as PermissionRequirement[]).map(
                (p) => p.key,
              ),
            ];
        const tags = [...classTags, ...(Reflect.getMetadata('swagger/apiUseTags', handler) ?? [])];
        for (const classPath of classPaths)
          for (const path of asList(methodPath))
            out.push({ method: verb, path: template(join(classPath, path)), summary, tags, policies });
      }
    }
    return out;
  }
}
