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
import { createOpenApiDocument, OpenApiDefinition } from '../openapi/openapi-document';
import { REQUEST_CONTEXT_HOOK } from './platform-http.module';
import { createRequestLog, REQUEST_LOG } from './request-log';
import { recordRoutes } from './registered-routes';

export interface HttpAppOptions {
  title: string;
  description: string;
  version: string;
  envelope: EnvelopeSelector;
  bodyLimitBytes: number;
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
  });
  const fastify = adapter.getInstance();
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
    logger: options.logger,
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
    logger: options.logger,
    ...options.openApi,
  });
  SwaggerModule.setup('docs', app as unknown as INestApplication, document, { jsonDocumentUrl: 'docs-json' });

  app.connectMicroservice({ strategy: new EventBusTransport(app.get(EventBus)) }, { inheritAppConfig: true });
  return app;
}
