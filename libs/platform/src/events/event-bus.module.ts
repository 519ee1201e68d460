import { DynamicModule, Global, Inject, Injectable, Module, OnApplicationShutdown } from '@nestjs/common';
import { ConfigurationError } from '../config/config-binding';
import { Configuration } from '../config/configuration';
import { EventBus } from './event-bus';
import { InProcessEventBus } from './in-process-event-bus';
import { NatsEventBus } from './nats-event-bus';

export interface EventBusModuleOptions {
  /** CloudEvents source / NATS connection name, e.g. `arbiter-control-plane`. */
  source: string;
  /** A bus shared with other apps of the same process (the one-process launcher passes one). */
  shared?: EventBus;
}

/**
 * The NATS servers named by `ConnectionStrings:Cache` (comma-separated), or none when it is empty.
 * Checked before the app is built, so a typo stops startup with the key's name.
 */
export function cacheServers(configuration: Configuration): string[] {
  const cache = configuration.get('ConnectionStrings:Cache')?.trim();
  if (!cache) return [];
  const servers = cache
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  for (const server of servers) {
    if (!/^(nats|tls|ws|wss):\/\//i.test(server) && !/^[\w.-]+:\d+$/.test(server)) {
      throw new ConfigurationError(
        `ConnectionStrings:Cache must be a NATS URL such as nats://host:4222 (got '${server}')`,
        ['ConnectionStrings:Cache'],
      );
    }
  }
  return servers;
}

/** `ConnectionStrings:Cache` empty → in-process bus; `nats://…` (comma-separated list) → NATS. */
export function createEventBus(configuration: Configuration, source: string): EventBus {
  const servers = cacheServers(configuration);
  return servers.length ? new NatsEventBus({ servers, source }) : new InProcessEventBus(source);
}

@Injectable()
class EventBusLifecycle implements OnApplicationShutdown {
  constructor(
    @Inject(EventBus) private readonly bus: EventBus,
    @Inject('EVENT_BUS_OWNED') private readonly owned: boolean,
  ) {}
  async onApplicationShutdown(): Promise<void> {
    if (this.owned) await this.bus.close();
  }
}

@Global()
@Module({})
export class EventBusModule {
  static forRoot(options: EventBusModuleOptions): DynamicModule {
    return {
      module: EventBusModule,
      providers: [
        {
          provide: EventBus,
          inject: [Configuration],
          useFactory: (configuration: Configuration) =>
            options.shared ?? createEventBus(configuration, options.source),
        },
        { provide: 'EVENT_BUS_OWNED', useValue: !options.shared },
        EventBusLifecycle,
      ],
      exports: [EventBus],
    };
  }
}
