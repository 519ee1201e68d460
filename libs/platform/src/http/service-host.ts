import { DynamicModule } from '@nestjs/common';
import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { bindConfig } from '../config/config-binding';
import { Configuration, loadConfiguration } from '../config/configuration';
import { EnvironmentName, resolveEnvironment } from '../config/environment';
import { EnvelopeSelector } from '../errors/error-envelope';
import { buildOpenApiDocumentOffline, OpenApiDefinition } from '../openapi/openapi-document';
import { EventBus } from '../events/event-bus';
import { cacheServers } from '../events/event-bus.module';
import { createRootLogger, JsonLogger } from '../logging/logger';
import { runAsService, setDefaultServiceLogger } from '../logging/service-logger';
import { createHttpApp } from './create-http-app';
import { HttpSettings } from './http.settings';

/** What the platform needs to know to host one service. */
export interface ServiceDefinition {
  /** Short name: `control-plane`, `decisions`, `identity`. */
  name: string;
  title: string;
  description: string;
  version: string;
  /** Folder with `default.json` and `<environment>.json`. */
  configDir: string;
  defaultPort: number;
  envelope: EnvelopeSelector;
  /** Its OpenAPI document: the default error family, the documentation of routes served in front of Nest. */
  openApi: OpenApiDefinition;
  bodyLimitBytes?: number;
  createModule(context: ServiceContext): DynamicModule;
  /** Registers Fastify plugins (body parsers, …) before Nest; gets the loaded, validated configuration. */
  configureFastify?: (fastify: any, context: ServiceContext) => void | Promise<void>;
}

export interface ServiceContext {
  configuration: Configuration;
  environment: EnvironmentName;
  /** Set by the one-process launcher so the three services share one in-process bus. */
  sharedBus?: EventBus;
}

export interface StartServiceOptions {
  /** Configuration values applied over the files (environment variables still win). */
  overrides?: Record<string, string | number | boolean | null | undefined | string[]>;
  env?: NodeJS.ProcessEnv;
  environment?: EnvironmentName;
  sharedBus?: EventBus;
  port?: number;
  host?: string;
}

export interface RunningService {
  name: string;
  app: NestFastifyApplication;
  url: string;
  configuration: Configuration;
  close(): Promise<void>;
}

/**
 * Loads and validates configuration (a bad key stops here, naming the key), builds the Nest app,
 * starts the event handlers and listens. Used by each app's `main.ts`, by the one-process launcher
 * and by the API tests, so all three start the same way.
 */
export async function startService(
  definition: ServiceDefinition,
  options: StartServiceOptions = {},
): Promise<RunningService> {
  const env = options.env ?? process.env;
  const environment = options.environment ?? resolveEnvironment(env);
  const configuration = loadConfiguration({
    configDir: definition.configDir,
    environment,
    overrides: options.overrides,
    env,
  });
  // Platforms that assign a port through PORT win over the files; an explicit Http__Port wins over PORT.
  if (env.PORT && !Object.keys(env).some((k) => k.toLowerCase() === 'http__port')) {
    configuration.set('Http:Port', env.PORT);
  }
  const http = bindConfig(HttpSettings, configuration);
  cacheServers(configuration);
  const logger = new JsonLogger(
    createRootLogger({ service: definition.name, level: configuration.get('Logging:Level') ?? undefined }),
  );
  setDefaultServiceLogger(logger);
  // this service's work (start-up, requests, timers, subscriptions, shutdown) logs as this service
  return runAsService(logger, async () => {
    const module = definition.createModule({ configuration, environment, sharedBus: options.sharedBus });
    const app = await createHttpApp(module, {
      title: definition.title,
      description: definition.description,
      version: definition.version,
      envelope: definition.envelope,
      bodyLimitBytes: configuration.get('Http:BodyLimitBytes')
        ? http.bodyLimitBytes
        : (definition.bodyLimitBytes ?? http.bodyLimitBytes),
      logger,
      defaultPort: definition.defaultPort,
      openApi: definition.openApi,
      configureFastify: definition.configureFastify
        ? (fastify) =>
            definition.configureFastify!(fastify, {
              configuration,
              environment,
              sharedBus: options.sharedBus,
            })
        : undefined,
    });
    try {
      await app.startAllMicroservices();
      const port = options.port ?? (configuration.get('Http:Port') ? http.port : definition.defaultPort);
      await app.listen({ port, host: options.host ?? http.host });
    } catch (error) {
      await app.close().catch(() => undefined);
      throw error;
    }
    const address = app.getHttpServer().address();
    const boundPort = typeof address === 'object' && address ? address.port : 0;
    const url = `http://127.0.0.1:${boundPort}`;
    logger.log({ msg: `${definition.name} listening`, url, environment }, 'Bootstrap');
    return {
      name: definition.name,
      app,
      url,
      configuration,
      close: () => runAsService(logger, () => app.close()),
    };
  });
}

/**
 * A service's OpenAPI document built without starting it (no database, no bus, no port): the same
 * document `/docs-json` serves, for the build to write to `docs/openapi/<service>.json`.
 */
export async function describeService(definition: ServiceDefinition) {
  const environment: EnvironmentName = 'Development';
  const configuration = loadConfiguration({ configDir: definition.configDir, environment, env: {} });
  const module = definition.createModule({ configuration, environment });
  return buildOpenApiDocumentOffline(module, {
    title: definition.title,
    description: definition.description,
    version: definition.version,
    defaultPort: definition.defaultPort,
    ...definition.openApi,
  });
}
