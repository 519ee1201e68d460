import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import Fastify, { FastifyInstance } from 'fastify';
import fastifyStatic from '@fastify/static';
import httpProxy from '@fastify/http-proxy';

/** The three services the console talks to, by their public base URLs. */
export interface ConsoleTargets {
  controlPlane: string;
  decisions: string;
  identity: string;
}

export interface ConsoleServerOptions {
  targets: ConsoleTargets;
  port?: number;
  host?: string;
  /** Folder of the built web app (default: this package's `dist/web`). */
  webRoot?: string;
  /**
   * Which services verify bearer tokens. The browser sends the operator's token only to those: the
   * decisions service refuses (401) a credential presented while it runs anonymously.
   */
  authenticated?: { controlPlane: boolean; decisions: boolean };
}

export interface RunningConsole {
  name: 'console';
  url: string;
  app: FastifyInstance;
  close(): Promise<void>;
}

/** Path prefixes under which the browser reaches each service (one origin: no CORS involved). */
export const CONSOLE_PROXY_PREFIXES = {
  controlPlane: '/svc/control-plane',
  decisions: '/svc/decisions',
  identity: '/svc/identity',
} as const;

/** The package's `dist/web` (what `vite build` writes), found from this file in `src/` or `dist/server/`. */
export function defaultWebRoot(): string {
  let dir = __dirname;
  while (!existsSync(join(dir, 'package.json')) && dirname(dir) !== dir) dir = dirname(dir);
  return resolve(dir, 'dist', 'web');
}

/** Whether `npm run build` has produced the web app this server serves. */
export function consoleBuilt(webRoot = defaultWebRoot()): boolean {
  return existsSync(join(webRoot, 'index.html'));
}

/**
 * Serves the built console and reverse-proxies `/svc/<service>/*` to the services (HTTP and the
 * SignalR WebSocket of the control plane's hub), so the browser talks to one origin.
 */
export async function startConsole(options: ConsoleServerOptions): Promise<RunningConsole> {
  const webRoot = options.webRoot ?? defaultWebRoot();
  if (!consoleBuilt(webRoot))
    throw new Error(`The console is not built (${webRoot}/index.html is missing): run \`npm run build\``);
  const app = Fastify({ logger: false, bodyLimit: 16 * 1024 * 1024 });
  for (const [key, prefix] of Object.entries(CONSOLE_PROXY_PREFIXES) as [keyof ConsoleTargets, string][]) {
    await app.register(httpProxy, {
      upstream: options.targets[key].replace(/\/$/, ''),
      prefix,
      rewritePrefix: '',
      websocket: key === 'controlPlane',
      http: { requestOptions: { timeout: 60_000 } },
      // the services see the browser's address (as any reverse proxy reports it); whether they trust
      // X-Forwarded-For is their own configuration
      replyOptions: {
        rewriteRequestHeaders: (request, headers) => ({
          ...headers,
          'x-forwarded-for': [headers['x-forwarded-for'], request.ip].filter(Boolean).join(', '),
          'x-forwarded-proto': request.protocol,
        }),
      },
    });
  }
  const runtime = {
    prefixes: CONSOLE_PROXY_PREFIXES,
    authenticated: options.authenticated ?? { controlPlane: false, decisions: false },
  };
  app.get('/console-config.json', async (_request, reply) => {
    reply.header('cache-control', 'no-store');
    return runtime;
  });
  await app.register(fastifyStatic, { root: webRoot, prefix: '/', wildcard: false, index: ['index.html'] });
  // client-side routes: any other GET that is not a file answers the app shell
  app.setNotFoundHandler((request, reply) => {
    if (request.method === 'GET' && !request.url.startsWith('/svc/')) return reply.sendFile('index.html');
    return reply.code(404).send({ error: 'Not found', code: 'ROUTE_NOT_FOUND' });
  });
  const address = await app.listen({ port: options.port ?? 3003, host: options.host ?? '127.0.0.1' });
  const port = Number(new URL(address).port);
  return {
    name: 'console',
    app,
    url: `http://127.0.0.1:${port}`,
    close: () => app.close(),
  };
}
