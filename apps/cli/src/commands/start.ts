import {
  EventBus,
  InProcessEventBus,
  RunningService,
  runUntilSignalled,
  startTelemetry,
} from '@arbiter/platform';
import type { StartServiceOptions } from '@arbiter/platform';
import type { RunningConsole } from '@arbiter/console';

export const SERVICES = ['control-plane', 'decisions', 'identity'] as const;
export type ServiceName = (typeof SERVICES)[number];

const DEFAULT_PORTS: Record<ServiceName, number> = { 'control-plane': 3000, decisions: 3001, identity: 3002 };
const PORT_ENV: Record<ServiceName, string> = {
  'control-plane': 'ARBITER_CONTROL_PLANE_PORT',
  decisions: 'ARBITER_DECISIONS_PORT',
  identity: 'ARBITER_IDENTITY_PORT',
};

export interface StartPlatformOptions {
  only?: ServiceName[];
  ports?: Partial<Record<ServiceName, number>>;
  host?: string;
  env?: NodeJS.ProcessEnv;
  /** Passed to every service (tests use it for databases and the environment). */
  serviceOptions?: Partial<Record<ServiceName, StartServiceOptions>>;
  /**
   * Also serve the operator console (apps/console, built) with its reverse proxy to the services.
   * Its port: `port`, else `ARBITER_CONSOLE_PORT`, else `Console__Port` (`Console:Port`), else 3003.
   */
  console?: boolean | { port?: number };
}

export interface RunningPlatform {
  services: RunningService[];
  console: RunningConsole | null;
  bus: EventBus | null;
  stop(): Promise<void>;
}

async function loadStarter(name: ServiceName): Promise<(o?: StartServiceOptions) => Promise<RunningService>> {
  switch (name) {
    case 'control-plane':
      return (await import('@arbiter/control-plane')).startControlPlane;
    case 'decisions':
      return (await import('@arbiter/decisions')).startDecisions;
    case 'identity':
      return (await import('@arbiter/identity')).startIdentity;
  }
}

/**
 * All services in one process: each on its own port and its own database (embedded PGlite under
 * `.data/` by default), sharing one in-process event bus unless `ConnectionStrings__Cache` names a
 * NATS server. If one service fails to start, the ones already up are stopped again.
 */
export async function startPlatform(options: StartPlatformOptions = {}): Promise<RunningPlatform> {
  const env = options.env ?? process.env;
  const names = options.only?.length ? options.only : [...SERVICES];
  const bus = env.ConnectionStrings__Cache?.trim() ? null : new InProcessEventBus('/arbiter/platform');
  const services: RunningService[] = [];
  let consoleServer: RunningConsole | null = null;
  try {
    for (const name of names) {
      const start = await loadStarter(name);
      const envPort = env[PORT_ENV[name]];
      const port = options.ports?.[name] ?? (envPort ? Number(envPort) : DEFAULT_PORTS[name]);
      if (!Number.isInteger(port) || port < 0 || port > 65535)
        throw new Error(`${PORT_ENV[name]} must be a port number`);
      services.push(
        await start({
          env,
          port,
          host: options.host,
          sharedBus: bus ?? undefined,
          ...options.serviceOptions?.[name],
        }),
      );
    }
    if (options.console) consoleServer = await startConsoleFor(services, options, env);
  } catch (error) {
    await Promise.allSettled(services.map((s) => s.close()));
    await bus?.close();
    throw error;
  }
  return {
    services,
    console: consoleServer,
    bus,
    stop: async () => {
      await consoleServer?.close();
      await Promise.allSettled(services.map((s) => s.close()));
      await bus?.close();
    },
  };
}

export const DEFAULT_CONSOLE_PORT = 3003;

/**
 * The console proxies to the services started here (or, for one left out with `--only`, to its default
 * local port) and sends the operator's token to the services that verify tokens.
 */
async function startConsoleFor(
  services: RunningService[],
  options: StartPlatformOptions,
  env: NodeJS.ProcessEnv,
): Promise<RunningConsole> {
  const { startConsole } = await import('@arbiter/console');
  const find = (name: ServiceName) => services.find((s) => s.name === name);
  const urlOf = (name: ServiceName) => find(name)?.url ?? `http://127.0.0.1:${DEFAULT_PORTS[name]}`;
  const raw =
    (typeof options.console === 'object' ? options.console.port : undefined) ??
    env.ARBITER_CONSOLE_PORT ??
    env.Console__Port ??
    DEFAULT_CONSOLE_PORT;
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new Error('ARBITER_CONSOLE_PORT (Console:Port) must be a port number');
  const cpConfig = find('control-plane')?.configuration;
  const dtConfig = find('decisions')?.configuration;
  return startConsole({
    port,
    host: options.host,
    targets: {
      controlPlane: urlOf('control-plane'),
      decisions: urlOf('decisions'),
      identity: urlOf('identity'),
    },
    authenticated: {
      controlPlane: cpConfig
        ? cpConfig.get('ControlPlaneAuth:DisableAuthorization')?.toLowerCase() === 'false'
        : false,
      decisions: dtConfig
        ? Boolean(
            dtConfig.get('Authentication:Jwt:Authority')?.trim() ||
            dtConfig.get('Authentication:Jwt:SigningKey')?.trim(),
          )
        : false,
    },
  });
}

/** `arbiter start`: runs the platform until SIGINT/SIGTERM, then drains every service. */
export async function runStartCommand(options: { only?: string; host?: string }): Promise<void> {
  startTelemetry('arbiter');
  const only = options.only
    ?.split(',')
    .map((s) => s.trim())
    .filter(Boolean) as ServiceName[] | undefined;
  const consoleAsked = !only || only.includes('console' as ServiceName);
  // a workspace built without the console (e.g. `turbo run build --filter=@arbiter/cli...` skipped it)
  // still starts the services; asking for the console alone with --only and no build is an error below
  const withConsole =
    consoleAsked && (only !== undefined || (await import('@arbiter/console')).consoleBuilt());
  const services = only?.filter((name) => name !== ('console' as ServiceName));
  if (only && !services?.length)
    throw new Error('--only console needs at least one service next to it (the console proxies to them)');
  for (const name of services ?? []) {
    if (!SERVICES.includes(name))
      throw new Error(`Unknown service '${name}': choose from ${[...SERVICES, 'console'].join(', ')}`);
  }
  const platform = await startPlatform({
    only: services,
    host: options.host,
    console: withConsole,
  });
  const local = (url: string) => url.replace('127.0.0.1', 'localhost');
  const lines = platform.services.map(
    (s) => `  ${s.name.padEnd(14)} ${local(s.url)}  (docs: ${local(s.url)}/docs)`,
  );
  if (platform.console)
    lines.push(`  ${'console'.padEnd(14)} ${local(platform.console.url)}  (operator console)`);
  else if (consoleAsked)
    lines.push(`  ${'console'.padEnd(14)} not built (npm run build builds apps/console)`);
  process.stdout.write(
    `\nArbiter is running (${platform.bus ? 'in-process event bus' : 'NATS event bus'}):\n${lines.join('\n')}\n\nPress Ctrl+C to stop.\n`,
  );
  runUntilSignalled([{ close: platform.stop }], { write: (line) => process.stdout.write(`${line}\n`) });
}
