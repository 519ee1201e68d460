import { DynamicModule, Global, Inject, Injectable, Module, OnApplicationShutdown } from '@nestjs/common';
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

/** `ConnectionStrings:Cache` empty → in-process bus; `nats://…` (comma-separated list) → NATS. */
export function createEventBus(configuration: Configuration, source: string): EventBus {
  const cache = configuration.get('ConnectionStrings:Cache')?.trim();
  if (!cache) return new InProcessEventBus(source);
  const servers = cache
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  for (const server of servers) {
    if (!/^(nats|tls|ws|wss):\/\//i.test(server) && !/^[\w.-]+:\d+$/.test(server)) {
      throw new Error(
        `ConnectionStrings:Cache must be a NATS URL such as nats://host:4222 (got '${server}')`,
      );
    }
  }
  return new NatsEventBus({ servers, source });
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
