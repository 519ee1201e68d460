import {
  EventBus,
  InProcessEventBus,
  RunningService,
  runUntilSignalled,
  startTelemetry,
} from '@arbiter/platform';
import type { StartServiceOptions } from '@arbiter/platform';

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
}

export interface RunningPlatform {
  services: RunningService[];
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
  } catch (error) {
    await Promise.allSettled(services.map((s) => s.close()));
    await bus?.close();
    throw error;
  }
  return {
    services,
    bus,
    stop: async () => {
      await Promise.allSettled(services.map((s) => s.close()));
      await bus?.close();
    },
  };
}

/** `arbiter start`: runs the platform until SIGINT/SIGTERM, then drains every service. */
export async function runStartCommand(options: { only?: string; host?: string }): Promise<void> {
  startTelemetry('arbiter');
  const only = options.only
    ?.split(',')
    .map((s) => s.trim())
    .filter(Boolean) as ServiceName[] | undefined;
  for (const name of only ?? []) {
    if (!SERVICES.includes(name))
      throw new Error(`Unknown service '${name}': choose from ${SERVICES.join(', ')}`);
  }
  const platform = await startPlatform({ only, host: options.host });
  const lines = platform.services.map(
    (s) =>
      `  ${s.name.padEnd(14)} ${s.url.replace('127.0.0.1', 'localhost')}  (docs: ${s.url.replace('127.0.0.1', 'localhost')}/docs)`,
  );
  process.stdout.write(
    `\nArbiter is running (${platform.bus ? 'in-process event bus' : 'NATS event bus'}):\n${lines.join('\n')}\n\nPress Ctrl+C to stop.\n`,
  );
  runUntilSignalled([{ close: platform.stop }], { write: (line) => process.stdout.write(`${line}\n`) });
}
