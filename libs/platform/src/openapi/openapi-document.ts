import { INestApplication, LoggerService, Module, Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { DocumentBuilder, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { CORRELATION_ID, TENANT_ID } from '../context/request-context.middleware';
import { ERROR_FAMILY_REF, OPENAPI_EXTENSIONS } from './api-decorators';
import { ErrorFamily, errorFamilySchema } from './error-family';

/** What a service tells the platform about its OpenAPI document. */
export interface OpenApiDefinition {
  /** The family of every operation that names none (`@ApiErrorFamily`). */
  errorFamily: ErrorFamily;
  /**
   * Documentation-only controllers of the routes served in front of Nest (hot routes): decorated like any
   * controller, never routed. Their operations join the document like the others.
   */
  unroutedControllers?: Type<unknown>[];
  /** Descriptions of the tags the operations use. */
  tags?: { name: string; description: string }[];
}

export interface OpenApiDocumentOptions extends OpenApiDefinition {
  title: string;
  description: string;
  /** The product version (`info.version`). */
  version: string;
  /** The port `npm start` serves the service on (the document's server). */
  defaultPort: number;
  /**
   * The service's logger, given to the documentation-only Nest app: Nest's logger is process-wide, and an app
   * created with another (or with none: `logger: false`) would silence the running service's log.
   */
  logger?: LoggerService | false;
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'options', 'head'] as const;

const STATUS_TEXT: Record<number, string> = {
  400: 'Bad request: the body, a parameter or the query is invalid',
  401: 'No credential, or one that failed verification',
  403: 'Authenticated, but not allowed',
  404: 'Not found',
  405: 'Method not allowed',
  409: 'Conflict with the current state',
  412: 'Precondition failed',
  413: 'Body or upload too large',
  414: 'A path parameter is longer than the router accepts (`URI_TOO_LONG`)',
  415: 'Unsupported media type (JSON bodies only)',
  422: 'Well-formed but not processable',
  429: 'Rate limit or quota exceeded (see Retry-After)',
  500: 'Unexpected failure (logged with the trace id)',
  502: 'An upstream service failed',
  503: 'A dependency is unavailable',
  504: 'An upstream service did not answer in time',
};

/** `RuleSetsController` + `save` → `ruleSetsSave`: stable, readable names for the generated client. */
export function operationIdOf(controllerKey: string, methodKey: string): string {
  const base = controllerKey.replace(/Controller$/, '');
  return (
    base.charAt(0).toLowerCase() + base.slice(1) + methodKey.charAt(0).toUpperCase() + methodKey.slice(1)
  );
}

function describe(app: INestApplication, options: OpenApiDocumentOptions): OpenAPIObject {
  const config = new DocumentBuilder()
    .setTitle(options.title)
    .setDescription(options.description)
    .setVersion(options.version)
    .setLicense('Proprietary', 'https://arbiter.dev/license')
    .addServer(
      '{scheme}://{host}:{port}',
      'A deployment of the service (the defaults: `npm start` on this machine)',
      {
        scheme: { default: 'http', enum: ['http', 'https'] },
        host: { default: 'localhost' },
        port: { default: String(options.defaultPort) },
      },
    )
    .addBearerAuth({
      type: 'http',
      scheme: 'bearer',
      bearerFormat: 'JWT',
      description: 'An access token issued by identity (or, where the service accepts them, an API key).',
    })
    .build();
  return SwaggerModule.createDocument(app, config, { operationIdFactory: operationIdOf });
}

/** The operations of documentation-only controllers, from a Nest app in preview mode (nothing runs). */
/**
 * The service's logger without the warning Nest prints for every preview app ("Application is running in the
 * PREVIEW mode!" between two rules): the documentation-only app is a preview on purpose. Nest installs the
 * logger it is given process-wide, so this passes every other line on as the service's logger would.
 */
function withoutPreviewBanner(logger: LoggerService): LoggerService {
  const banner = (message: unknown, params: unknown[]) =>
    params[params.length - 1] === 'NestApplicationContext' &&
    typeof message === 'string' &&
    (/PREVIEW mode|will not be instantiated/.test(message) || /^-+$/.test(message));
  return {
    log: (message, ...params) => logger.log(message, ...params),
    error: (message, ...params) => logger.error(message, ...params),
    warn: (message, ...params) => {
      if (!banner(message, params)) logger.warn(message, ...params);
    },
    debug: (message, ...params) => logger.debug?.(message, ...params),
    verbose: (message, ...params) => logger.verbose?.(message, ...params),
    fatal: (message, ...params) => logger.fatal?.(message, ...params),
    setLogLevels: (levels) => logger.setLogLevels?.(levels),
  };
}

async function describeUnrouted(
  controllers: Type<unknown>[],
  options: OpenApiDocumentOptions,
): Promise<OpenAPIObject> {
  @Module({ controllers })
  class UnroutedDocumentation {}
  const app = await NestFactory.create(UnroutedDocumentation, new FastifyAdapter(), {
    preview: true,
    logger: options.logger ? withoutPreviewBanner(options.logger) : false,
    abortOnError: false,
  });
  try {
    return describe(app as unknown as INestApplication, options);
  } finally {
    await app.close();
  }
}

/**
 * The service's OpenAPI document: every operation of its controllers and of its documentation-only
 * controllers, finished as the platform promises to clients (`finishDocument`).
 */
export async function createOpenApiDocument(
  app: INestApplication,
  options: OpenApiDocumentOptions,
): Promise<OpenAPIObject> {
  const document = describe(app, options);
  if (options.unroutedControllers?.length) {
    const unrouted = await describeUnrouted(options.unroutedControllers, options);
    Object.assign(document.paths, unrouted.paths);
    document.components ??= {};
    document.components.schemas = { ...unrouted.components?.schemas, ...document.components.schemas };
  }
  return finishDocument(document, options);
}

/**
 * Completes what every operation shares: its security (bearer unless public), the error responses its
 * shape implies (400 and 500 always, 413/415 with a body, 401/403 unless public) plus those it declares, each
 * with its family's error body; the families as schemas; the tags' descriptions.
 */
export function finishDocument(document: OpenAPIObject, options: OpenApiDocumentOptions): OpenAPIObject {
  const families = new Map<string, ErrorFamily>();
  const usedTags = new Set<string>();
  document.components ??= {};
  document.components.schemas ??= {};
  document.security = [{ bearer: [] }];
  // the headers every route reads (request-context.middleware.ts), described once and referred to by each operation
  document.components.parameters = {
    ...document.components.parameters,
    TenantId: {
      in: 'header',
      name: 'x-tenant-id',
      required: false,
      description:
        "The tenant the request acts for (when the service takes it from the header; a token's tenant claim wins " +
        'where the service requires one). A malformed value is a 400 `INVALID_TENANT_ID`.',
      schema: { type: 'string', pattern: TENANT_ID.source, maxLength: 128 },
    },
    CorrelationId: {
      in: 'header',
      name: 'x-correlation-id',
      required: false,
      description:
        "Correlation id echoed on the response (and the error body's `traceId`); a fresh one when absent.",
      schema: { type: 'string', pattern: CORRELATION_ID.source, maxLength: 128 },
    },
  };
  const sharedHeaders = [
    { name: 'x-tenant-id', ref: '#/components/parameters/TenantId' },
    { name: 'x-correlation-id', ref: '#/components/parameters/CorrelationId' },
  ];
  for (const pathItem of Object.values(document.paths)) {
    for (const method of METHODS) {
      const operation = (pathItem as Record<string, any>)[method];
      if (!operation) continue;
      const family: ErrorFamily = operation[OPENAPI_EXTENSIONS.errorFamily] ?? options.errorFamily;
      const declared: number[] = operation[OPENAPI_EXTENSIONS.errorStatuses] ?? [];
      const isPublic = operation[OPENAPI_EXTENSIONS.public] === true;
      delete operation[OPENAPI_EXTENSIONS.errorFamily];
      delete operation[OPENAPI_EXTENSIONS.errorStatuses];
      delete operation[OPENAPI_EXTENSIONS.public];
      // every request can be refused before its route runs: a malformed x-tenant-id (400), or a failure (500)
      const statuses = new Set<number>([...declared, 400, 500]);
      if (operation.requestBody) for (const s of [413, 415]) statuses.add(s);
      // the router refuses an over-long path parameter before the route runs
      if ((operation.parameters ?? []).some((p: { in?: string }) => p.in === 'path')) statuses.add(414);
      if (isPublic) operation.security = [];
      else {
        delete operation.security;
        statuses.add(401);
        statuses.add(403);
      }
      families.set(family.name, family);
      operation.parameters ??= [];
      for (const header of sharedHeaders) {
        const declared = operation.parameters.some(
          (p: { in?: string; name?: string }) => p.in === 'header' && p.name?.toLowerCase() === header.name,
        );
        if (!declared) operation.parameters.push({ $ref: header.ref });
      }
      operation.responses = JSON.parse(
        JSON.stringify(operation.responses ?? {}).replaceAll(
          ERROR_FAMILY_REF,
          `#/components/schemas/${family.name}`,
        ),
      );
      for (const status of [...statuses].sort((a, b) => a - b)) {
        const key = String(status);
        const existing = operation.responses[key] ?? {};
        operation.responses[key] = {
          ...existing,
          description: existing.description ?? STATUS_TEXT[status] ?? `HTTP ${status}`,
          content: existing.content ?? {
            'application/json': { schema: { $ref: `#/components/schemas/${family.name}` } },
          },
        };
      }
      for (const tag of operation.tags ?? []) usedTags.add(tag);
    }
  }
  for (const family of families.values())
    document.components.schemas[family.name] = errorFamilySchema(family) as never;
  const described = new Map((options.tags ?? []).map((t) => [t.name, t.description]));
  document.tags = [...usedTags].sort().map((name) => ({ name, description: described.get(name) ?? name }));
  return document;
}

/** Builds a service's document without running it (Nest's preview mode: no provider is instantiated). */
export async function buildOpenApiDocumentOffline(
  module: unknown,
  options: OpenApiDocumentOptions,
): Promise<OpenAPIObject> {
  const app = await NestFactory.create(module as never, new FastifyAdapter(), {
    preview: true,
    logger: false,
    abortOnError: false,
  });
  try {
    return await createOpenApiDocument(app as unknown as INestApplication, options);
  } finally {
    await app.close();
  }
}
