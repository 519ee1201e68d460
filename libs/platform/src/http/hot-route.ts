import { Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { parse as parseQuery } from 'node:querystring';
import { RequestContext, RequestContextData } from '../context/request-context';
import { requestContextFor } from '../context/request-context.middleware';
import { toProblem } from '../errors/all-exceptions.filter';
import type { EnvelopeWriter } from '../errors/error-envelope';
import { InvalidJsonBodyError, isBodyParseError, parseJsonRequestBody } from './json-body';
import { REQUEST_LOG, RequestLog } from './request-log';

/** The parts of a request a hot route reads. */
export interface HotRouteRequest {
  method: string;
  url: string;
  params: Record<string, string>;
  query: Record<string, unknown>;
  headers: Record<string, unknown>;
  body: unknown;
  /**
   * The client's address as Fastify's `request.ip` gives it (the socket's peer address: the services do not
   * set `trustProxy`; when a host does, the fast path leaves every request to the Fastify route, whose `ip`
   * then honours `X-Forwarded-For`). Per-client limits key on it.
   */
  ip: string;
}

export interface HotRouteDefinition {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** Fastify path syntax, e.g. `/api/v1/rule-engine/execute/:workflowName`. */
  url: string;
  /** The service family's error envelope. */
  envelope: EnvelopeWriter;
  /** The result, or a promise of it (a synchronous result is answered without a promise). */
  handle(request: HotRouteRequest): unknown;
  /** Success status (default 200). */
  status?: number;
}

interface FastifyReplyLike {
  sent: boolean;
  code(status: number): FastifyReplyLike;
  header(name: string, value: string): FastifyReplyLike;
  send(body: unknown): FastifyReplyLike;
}

interface FastifyLike {
  server: Server;
  initialConfig: { bodyLimit?: number; trustProxy?: unknown };
  route(options: unknown): void;
  [REQUEST_LOG]?: RequestLog;
  [FAST_PATH]?: FastPath;
}

const logger = new Logger('Errors');
const FAST_PATH = Symbol.for('arbiter.hotRouteFastPath');
const SLASH = 0x2f;
const JSON_TYPE = /^application\/json\s*(;\s*charset=utf-?8\s*)?$/i;
/** Responses held for one flush at most (the rest of a long turn is written in further batches). */
const MAX_PENDING_RESPONSES = 32;
const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';
/** What Nest's `enableCors()` (origin `*`) adds to every response of the services. */
const CORS_ORIGIN = '*';

function logUnhandled(traceId: string, error: unknown) {
  logger.error({
    msg: 'Unhandled error',
    traceId,
    err: error instanceof Error ? { message: error.message, stack: error.stack } : error,
  });
}

function sendProblem(reply: FastifyReplyLike, error: unknown, envelope: EnvelopeWriter) {
  const traceId = RequestContext.correlationId() ?? randomUUID();
  const problem = toProblem(error, traceId);
  if (problem.status >= 500) logUnhandled(traceId, error);
  if (reply.sent) return reply;
  reply.code(problem.status).header('content-type', JSON_CONTENT_TYPE).header('x-correlation-id', traceId);
  for (const [name, value] of Object.entries(problem.headers ?? {})) reply.header(name, value);
  return reply.send(envelope(problem));
}

/**
 * A route for a hot path where the per-request cost of Nest's pipeline and Fastify's lifecycle shows
 * (router proxy, guards, pipes, interceptors, exception zone; then Fastify's hooks, body-parser wrapper and
 * reply pipeline). It is registered twice:
 *
 * - as a Fastify route, which serves every request of the path the fast path leaves to it;
 * - on the fast path, in front of Fastify on the same server and port: a request of the route's method and
 *   path with a JSON body of a declared length (`content-length`, no transfer encoding) within the body
 *   limit, a well-formed `x-tenant-id` and while the service is not shutting down is read, parsed
 *   (`secure-json-parse`, prototype poisoning refused as Fastify refuses it) and answered with Node's
 *   response directly. Anything else (a chunked or other-typed body, a malformed tenant, shutdown, a host with `trustProxy`) takes the
 *   Fastify route, whose hooks and errors are the reference the fast path reproduces: the request context
 *   (correlation id, tenant, actor), the `x-correlation-id` and CORS headers, the JSON serialization, the
 *   family's error envelope for everything thrown (body errors included, with Fastify's codes) and the
 *   request log line.
 *
 * The handler does its own authorization (`AuthPipeline.authorize`, see `registerAuthorizedHotRoute`) and
 * validation. `target` is Nest's HTTP adapter (from `HttpAdapterHost`) or the Fastify instance; register
 * before the server listens (`onApplicationBootstrap`).
 */
export function registerHotRoute(target: unknown, route: HotRouteDefinition): void {
  if (!target) return;
  const adapter = target as { getInstance?: () => unknown; isShuttingDown?: boolean };
  const fastify = (typeof adapter.getInstance === 'function' ? adapter.getInstance() : target) as FastifyLike;
  const status = route.status ?? 200;
  fastify.route({
    method: route.method,
    url: route.url,
    errorHandler: (error: unknown, _request: unknown, reply: FastifyReplyLike) =>
      sendProblem(reply, error, route.envelope),
    handler: async (request: HotRouteRequest, reply: FastifyReplyLike) => {
      try {
        const result = await route.handle(request);
        reply.code(status);
        return result;
      } catch (error) {
        return sendProblem(reply, error, route.envelope);
      }
    },
  });
  if (!fastify.server) return;
  fastify[FAST_PATH] ??= new FastPath(
    fastify.server,
    fastify.initialConfig?.bodyLimit ?? 1024 * 1024,
    () => adapter.isShuttingDown === true || Boolean(fastify.initialConfig?.trustProxy),
    () => fastify[REQUEST_LOG],
  );
  fastify[FAST_PATH].add(route);
}

interface CompiledRoute {
  definition: HotRouteDefinition;
  status: number;
  /** Path segments; `null` marks a parameter. */
  segments: (string | null)[];
  names: string[];
}

class BodyError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly statusCode: number,
  ) {
    super(message);
  }
}

/**
 * The fast path of a server's hot routes: one `request` listener in front of Fastify's that takes the
 * requests it can answer exactly as Fastify's route would and hands every other request to Fastify.
 */
class FastPath {
  private readonly routes: CompiledRoute[] = [];

  constructor(
    private readonly server: Server,
    private readonly bodyLimit: number,
    /** Shutting down, or a host whose client addresses come from a proxy's headers: Fastify serves all. */
    private readonly declined: () => boolean,
    private readonly requestLog: () => RequestLog | undefined,
  ) {
    const fallback = server.listeners('request') as ((req: IncomingMessage, res: ServerResponse) => void)[];
    server.removeAllListeners('request');
    server.on('request', (req: IncomingMessage, res: ServerResponse) => {
      if (this.serve(req, res)) return;
      for (const listener of fallback) listener.call(server, req, res);
    });
  }

  add(definition: HotRouteDefinition) {
    const parts = definition.url.split('/');
    this.routes.push({
      definition,
      status: definition.status ?? 200,
      segments: parts.map((p) => (p.startsWith(':') ? null : p)),
      names: parts.filter((p) => p.startsWith(':')).map((p) => p.slice(1)),
    });
  }

  /** Answers the request if it is one of the fast path's; false hands it to Fastify untouched. */
  private serve(req: IncomingMessage, res: ServerResponse): boolean {
    if (this.routes.length === 0 || !this.server.listening || this.declined()) return false;
    const url = req.url ?? '/';
    const queryStart = url.indexOf('?');
    const path = queryStart < 0 ? url : url.slice(0, queryStart);
    let route: CompiledRoute | undefined;
    let params: Record<string, string> | undefined;
    for (const candidate of this.routes) {
      if (candidate.definition.method !== req.method) continue;
      params = matchPath(candidate, path);
      if (params) {
        route = candidate;
        break;
      }
    }
    if (!route || !params) return false;
    const headers = req.headers;
    const type = headers['content-type'];
    const length = Number(headers['content-length']);
    if (
      type === undefined ||
      !JSON_TYPE.test(type) ||
      headers['transfer-encoding'] !== undefined ||
      !(length > 0 && length <= this.bodyLimit)
    )
      return false;
    let context: Partial<RequestContextData>;
    try {
      context = requestContextFor(req); // x-correlation-id goes out with the answer's other headers
    } catch {
      return false; // Fastify's route answers the malformed tenant with its 400
    }
    const started = performance.now();
    // Node's parser frames the body by its content-length: 'end' comes after exactly `length` bytes (an
    // aborted request ends in 'error', not 'end').
    const chunks: Buffer[] = [];
    const onData = (chunk: Buffer) => chunks.push(chunk);
    const onEnd = () => {
      const text = (chunks.length === 1 ? chunks[0] : Buffer.concat(chunks)).toString('utf8');
      this.respond(
        route,
        params,
        context,
        req,
        res,
        started,
        queryStart < 0 ? '' : url.slice(queryStart + 1),
        text,
      );
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', () => undefined); // an aborted request: nothing to answer
    return true;
  }

  private respond(
    route: CompiledRoute,
    params: Record<string, string>,
    context: Partial<RequestContextData>,
    req: IncomingMessage,
    res: ServerResponse,
    started: number,
    query: string,
    text: string,
  ) {
    RequestContext.run(context, () => {
      let result: unknown;
      try {
        let body: unknown;
        try {
          body = parseJsonRequestBody(text);
        } catch (error) {
          throw error instanceof InvalidJsonBodyError ? invalidJsonBody() : error;
        }
        result = route.definition.handle({
          method: req.method ?? route.definition.method,
          url: req.url ?? '/',
          params,
          query: query ? parseQuery(query) : {},
          headers: req.headers,
          body,
          ip: req.socket.remoteAddress ?? '',
        });
      } catch (error) {
        return this.fail(route, context, req, res, started, error);
      }
      if (isPromise(result))
        result.then(
          (value) => this.send(res, req, route.status, value, started, context.correlationId!),
          (error) => this.fail(route, context, req, res, started, error),
        );
      else this.send(res, req, route.status, result, started, context.correlationId!);
    });
  }

  private send(
    res: ServerResponse,
    req: IncomingMessage,
    status: number,
    value: unknown,
    started: number,
    correlationId: string,
  ) {
    if (res.headersSent || res.destroyed) return;
    const payload = JSON.stringify(value) ?? '';
    res.writeHead(status, [
      'content-type',
      JSON_CONTENT_TYPE,
      'content-length',
      String(Buffer.byteLength(payload)),
      'access-control-allow-origin',
      CORS_ORIGIN,
      'x-correlation-id',
      correlationId,
    ]);
    this.flush(res, payload);
    this.log(req, status, started, correlationId);
  }

  private fail(
    route: CompiledRoute,
    context: Partial<RequestContextData>,
    req: IncomingMessage,
    res: ServerResponse,
    started: number,
    error: unknown,
  ) {
    const traceId = RequestContext.correlationId() ?? context.correlationId ?? randomUUID();
    const problem = toProblem(error, traceId);
    if (problem.status >= 500) logUnhandled(traceId, error);
    if (res.headersSent || res.destroyed) return;
    const payload = JSON.stringify(route.definition.envelope(problem));
    res.writeHead(problem.status, {
      ...problem.headers,
      'content-type': JSON_CONTENT_TYPE,
      'content-length': Buffer.byteLength(payload),
      'x-correlation-id': traceId,
      'access-control-allow-origin': CORS_ORIGIN,
      // as Fastify does after a body error: the connection is not reused
      ...(error instanceof BodyError || isBodyParseError(error) ? { connection: 'close' } : {}),
    });
    this.flush(res, payload);
    this.log(req, problem.status, started, traceId);
  }

  /**
   * Responses finished in one turn of the event loop are written together at its end (`setImmediate`):
   * under load a peer woken by the first write is still reading when the next ones arrive, so the
   * batch costs one cross-core wake-up instead of one per response (measured on the decisions benchmark:
   * 15.5k → 26k requests/s). An idle server flushes at once; a long turn flushes every 32 responses.
   */
  private flush(res: ServerResponse, payload: string) {
    this.pending.push(res, payload);
    if (this.pending.length >= 2 * MAX_PENDING_RESPONSES) this.writePending();
    else if (this.pending.length === 2) setImmediate(this.writePending);
  }

  private readonly pending: (ServerResponse | string)[] = [];
  private readonly writePending = () => {
    const pending = this.pending;
    for (let i = 0; i < pending.length; i += 2) (pending[i] as ServerResponse).end(pending[i + 1] as string);
    pending.length = 0;
  };

  private log(req: IncomingMessage, statusCode: number, started: number, correlationId: string) {
    const log = this.requestLog();
    if (!log || (statusCode < 400 && !log.logsSuccesses)) return;
    log({
      method: req.method ?? '',
      url: req.url ?? '/',
      statusCode,
      durationMs: performance.now() - started,
      correlationId,
    });
  }
}

/**
 * The route's parameters when `path` is one of its paths. Walks the path once (no split: this runs for
 * every request of the server): a literal segment must be there up to the next `/`, a parameter takes
 * a non-empty segment, percent-decoded.
 */
function matchPath(route: CompiledRoute, path: string): Record<string, string> | undefined {
  const segments = route.segments;
  const params: Record<string, string> = {};
  let name = 0;
  let at = 0;
  for (let i = 0; i < segments.length; i++) {
    if (i > 0) {
      if (path.charCodeAt(at) !== SLASH) return undefined;
      at++;
    }
    const slash = path.indexOf('/', at);
    const end = slash < 0 ? path.length : slash;
    const expected = segments[i];
    if (expected === null) {
      if (end === at) return undefined;
      let value = path.slice(at, end);
      if (value.includes('%')) {
        try {
          value = decodeURIComponent(value);
        } catch {
          return undefined; // Fastify's router answers the malformed escape
        }
      }
      params[route.names[name++]] = value;
    } else if (end - at !== expected.length || !path.startsWith(expected, at)) return undefined;
    at = end;
  }
  return at === path.length ? params : undefined;
}

/**
 * The body as Fastify's JSON parser reads it (`secure-json-parse`, `__proto__` and `constructor` keys refused).
 * A text with no backslash, no byte-order mark and neither word cannot hold such a key, however escaped: it
 * is read by `JSON.parse` alone, without the two pattern scans (three plain searches instead).
 */
/** Fastify's own error for a body that does not parse (prototype poisoning included), code and message alike. */
function invalidJsonBody() {
  return new BodyError(
    'FST_ERR_CTP_INVALID_JSON_BODY',
    "Body is not valid JSON but content-type is set to 'application/json'",
    400,
  );
}

function isPromise(value: unknown): value is Promise<unknown> {
  return typeof (value as Promise<unknown> | null)?.then === 'function';
}
