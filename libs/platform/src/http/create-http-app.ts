import { INestApplication, LoggerService } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import { SwaggerModule } from '@nestjs/swagger';
import { randomUUID } from 'node:crypto';
import { RequestContextMiddleware } from '../context/request-context.middleware';
import { AllExceptionsFilter, toProblem } from '../errors/all-exceptions.filter';
import { EnvelopeSelector } from '../errors/error-envelope';
import { createValidationPipe } from '../errors/validation';
import { EventBus } from '../events/event-bus';
import { EventBusTransport } from '../events/event-bus.transport';
import { serviceScopedLogger } from '../logging/service-logger';
import { createOpenApiDocument, OpenApiDefinition } from '../openapi/openapi-document';
import { REQUEST_CONTEXT_HOOK } from './platform-http.module';
import { createRequestLog, REQUEST_LOG } from './request-log';
import { parseJsonRequestBody } from './json-body';
import { parseJsonRequestBytesSliced, SLICED_BODY_CHARS } from './json-body-sliced';
import { recordRoutes } from './registered-routes';

/** The longest path parameter the router accepts (longer: 414 `URI_TOO_LONG`). */
export const MAX_PATH_PARAMETER_LENGTH = 512;

export interface HttpAppOptions {
  title: string;
  description: string;
  version: string;
  envelope: EnvelopeSelector;
  bodyLimitBytes: number;
  /**
   * The service's logger: its request log writes here. Everything else logged through Nest's `Logger`
   * reaches it when the app is created, listens and closes inside `runAsService(logger, …)`.
   */
  logger: LoggerService;
  /** The port `npm start` serves the service on (the OpenAPI document's server). */
  defaultPort: number;
  openApi: OpenApiDefinition;
  /** Extra body parsers (e.g. multipart for imports) registered on the Fastify instance. */
  configureFastify?: (fastify: any) => void | Promise<void>;
}

/**
 * Every service's HTTP host: Nest on Fastify, the platform's validation pipe and error filter,
 * OpenAPI at /docs (UI) and /docs-json, event handlers wired to the bus through EventBusTransport.
 */
export async function createHttpApp(
  module: unknown,
  options: HttpAppOptions,
): Promise<NestFastifyApplication> {
  const adapter = new FastifyAdapter({
    bodyLimit: options.bodyLimitBytes,
    return503OnClosing: true,
    forceCloseConnections: 'idle',
    genReqId: () => randomUUID(),
    disableRequestLogging: true,
    routerOptions: {
      // `/api/v1/tenants/` is `/api/v1/tenants` (the spec writes some list routes with the slash)
      ignoreTrailingSlash: true,
      // a path parameter longer than this is a 414 `URI_TOO_LONG`; shorter ones reach the route's own
      // check (a 129-character workflow name is a 400 `INVALID_WORKFLOW_NAME`)
      maxParamLength: MAX_PATH_PARAMETER_LENGTH,
    },
    // The router answers a malformed URL or an over-long parameter before any hook runs: in the family's
    // envelope, with a code, like every other error.
    frameworkErrors: (error: unknown, request: any, reply: any) => {
      const traceId = randomUUID();
      const problem = toProblem(error, traceId);
      reply
        .code(problem.status)
        .header('content-type', 'application/json; charset=utf-8')
        .header('x-correlation-id', traceId)
        .send(options.envelope(String(request?.raw?.url ?? request?.url ?? '/').split('?')[0])(problem));
    },
  });
  const fastify = adapter.getInstance();
  // JSON bodies: an empty body is no body, a `__proto__` key is 400 `FORBIDDEN_JSON_KEY` (json-body.ts).
  // Registered through Nest's `useBodyParser`, so Nest does not add its default JSON parser after it.
  adapter.useBodyParser(
    'application/json',
    false,
    { bodyLimit: options.bodyLimitBytes },
    (_request: unknown, body: Buffer, done: (error: Error | null, value?: unknown) => void) => {
      if (body.length >= SLICED_BODY_CHARS) {
        // a large body (a 100,000-row table) is parsed in slices, from its bytes: no other request waits
        parseJsonRequestBytesSliced(body).then(
          (value) => done(null, value),
          (error: Error) => done(error, undefined),
        );
        return;
      }
      const text = body.toString('utf8');
      let value: unknown;
      try {
        value = parseJsonRequestBody(text);
      } catch (error) {
        return done(error as Error, undefined);
      }
      done(null, value);
    },
  );
  recordRoutes(fastify);
  // First step of every request: the request context (correlation id, tenant, header actor) as a Fastify
  // hook, so body parsing, guards, pipes and handlers all run inside it. (Applied as Nest middleware it went
  // through middie's per-request path matching: ≈ 30 µs of CPU a request more on the decisions benchmark.)
  const requestContext = new RequestContextMiddleware();
  (fastify as unknown as Record<symbol, unknown>)[REQUEST_CONTEXT_HOOK] = true; // PlatformHttpModule then adds no middleware
  fastify.addHook('onRequest', (request: any, reply: any, done: () => void) => {
    try {
      requestContext.use(request.raw, reply.raw, done);
    } catch (error) {
      // a refused request (malformed x-tenant-id): the family's envelope, as the exception filter writes it
      const traceId = String(reply.raw.getHeader('x-correlation-id') ?? randomUUID());
      const problem = toProblem(error, traceId);
      reply
        .code(problem.status)
        .header('content-type', 'application/json; charset=utf-8')
        .header('x-correlation-id', traceId)
        .send(options.envelope(String(request.url ?? '/').split('?')[0])(problem));
    }
  });
  // JSON APIs: a text/plain body is an unsupported media type, not a string to validate.
  fastify.removeContentTypeParser('text/plain');
  await options.configureFastify?.(fastify);
  // One structured line per request (failures at info, successes at debug); hot routes write the same line.
  const requestLog = createRequestLog(options.logger);
  (fastify as unknown as Record<symbol, unknown>)[REQUEST_LOG] = requestLog;
  fastify.addHook('onResponse', (request: any, reply: any, done: () => void) => {
    if (reply.statusCode < 400 && !requestLog.logsSuccesses) return done();
    requestLog({
      method: request.method,
      url: request.url,
      statusCode: reply.statusCode,
      durationMs: reply.elapsedTime,
      correlationId: reply.getHeader('x-correlation-id'),
    });
    done();
  });

  // JSON APIs only: Nest's body parsers would add `application/x-www-form-urlencoded` (a body a
  // cross-site HTML form can send without a preflight); Fastify's own JSON parser stays, any other
  // type is 415 UNSUPPORTED_MEDIA_TYPE unless a service registers a parser for it (configureFastify).
  const app = await NestFactory.create<NestFastifyApplication>(module as never, adapter, {
    // Nest installs its logger process-wide: the dispatcher, so each service's lines keep its name
    logger: serviceScopedLogger,
    abortOnError: false,
    bodyParser: false,
  });
  app.useGlobalFilters(new AllExceptionsFilter(options.envelope));
  app.useGlobalPipes(createValidationPipe());
  app.enableCors();

  const document = await createOpenApiDocument(app as unknown as INestApplication, {
    title: options.title,
    description: options.description,
    version: options.version,
    defaultPort: options.defaultPort,
    logger: serviceScopedLogger,
    ...options.openApi,
  });
  SwaggerModule.setup('docs', app as unknown as INestApplication, document, { jsonDocumentUrl: 'docs-json' });

  app.connectMicroservice({ strategy: new EventBusTransport(app.get(EventBus)) }, { inheritAppConfig: true });
  return app;
}
