import { DynamicModule, Module, Provider, Type } from '@nestjs/common';
import { join } from 'node:path';
import { ConfigurationModule } from '../src/config/configuration.module';
import { EnvelopeSelector } from '../src/errors/error-envelope';
import { EventBusModule } from '../src/events/event-bus.module';
import { PlatformHttpModule } from '../src/http/platform-http.module';
import { RunningService, ServiceContext, startService } from '../src/http/service-host';
import { defineErrorFamily, ErrorFamily } from '../src/openapi/error-family';

export interface ProbeParts {
  envelope: EnvelopeSelector;
  controllers?: Type<unknown>[];
  providers?: Provider[];
  /** The family of the probe's error responses in its OpenAPI document. */
  errorFamily?: ErrorFamily;
  /** Configuration values over the (empty) files. */
  overrides?: Record<string, string | number | boolean>;
}

@Module({})
class ProbeModule {
  static register(context: ServiceContext, parts: ProbeParts): DynamicModule {
    return {
      module: ProbeModule,
      imports: [
        ConfigurationModule.forRoot({
          configuration: context.configuration,
          environment: context.environment,
          settings: [],
        }),
        EventBusModule.forRoot({ source: 'probe' }),
        PlatformHttpModule,
      ],
      controllers: parts.controllers ?? [],
      providers: parts.providers ?? [],
    };
  }
}

/** A minimal service on the platform's host (Testing environment, ephemeral port) with the given parts. */
export function startProbe(parts: ProbeParts): Promise<RunningService> {
  return startService(
    {
      name: 'probe',
      title: 'probe',
      description: 'probe',
      version: '0.0.0',
      configDir: join(__dirname, 'no-config'),
      defaultPort: 0,
      envelope: parts.envelope,
      openApi: {
        errorFamily:
          parts.errorFamily ??
          defineErrorFamily({ name: 'ProbeError', envelope: 'trace', description: 'probe', codes: [] }),
      },
      createModule: (context) => ProbeModule.register(context, parts),
    },
    { environment: 'Testing', env: {}, port: 0, host: '127.0.0.1', overrides: parts.overrides },
  );
}
