import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import { CommonErrorCodes } from '@arbiter/contracts';
import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { RequestContext } from '../context/request-context';
import { AppError } from './app-error';
import { EnvelopeSelector, Problem } from './error-envelope';

interface FastifyLikeError {
  statusCode?: number;
  code?: string;
  message?: string;
  name?: string;
}

const FASTIFY_CODES: Record<string, { status: number; code: string; message?: string }> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: {
    status: 415,
    code: CommonErrorCodes.UnsupportedMediaType,
    message: 'Unsupported content type: send application/json',
  },
  FST_ERR_CTP_BODY_TOO_LARGE: {
    status: 413,
    code: CommonErrorCodes.PayloadTooLarge,
    message: 'Request body is too large',
  },
  FST_ERR_CTP_EMPTY_JSON_BODY: {
    status: 400,
    code: CommonErrorCodes.MalformedJson,
    message: 'Body is empty but Content-Type is application/json',
  },
  FST_ERR_CTP_INVALID_JSON_BODY: { status: 400, code: CommonErrorCodes.MalformedJson },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: { status: 400, code: CommonErrorCodes.InvalidContentLength },
  FST_ERR_CTP_INVALID_TYPE: { status: 400, code: CommonErrorCodes.UnsupportedMediaType },
  FST_ERR_INVALID_URL: { status: 400, code: CommonErrorCodes.InvalidUrl },
  FST_ERR_MAX_PARAM_LENGTH: {
    status: 414,
    code: CommonErrorCodes.UriTooLong,
    message: 'A path parameter is longer than the service accepts',
  },
  FST_ERR_BAD_URL: { status: 400, code: CommonErrorCodes.InvalidUrl },
};

const STATUS_CODES: Record<number, string> = {
  400: CommonErrorCodes.BadRequest,
  401: CommonErrorCodes.Unauthorized,
  403: CommonErrorCodes.Forbidden,
  404: CommonErrorCodes.NotFound,
  405: CommonErrorCodes.MethodNotAllowed,
  409: CommonErrorCodes.Conflict,
  413: CommonErrorCodes.PayloadTooLarge,
  414: CommonErrorCodes.UriTooLong,
  415: CommonErrorCodes.UnsupportedMediaType,
  422: CommonErrorCodes.UnprocessableEntity,
  429: CommonErrorCodes.RateLimited,
  503: CommonErrorCodes.ServiceUnavailable,
};

/** Turns anything thrown into a status, a stable code and a message, never leaking internals on 5xx. */
export function toProblem(
  exception: unknown,
  traceId: string,
): Problem & { headers?: Record<string, string> } {
  if (exception instanceof AppError) {
    return {
      status: exception.status,
      code: exception.code,
      message: exception.message,
      traceId,
      details: exception.details,
      headers: exception.headers,
    };
  }
  if (exception instanceof HttpException) {
    // Nest's Fastify adapter wraps Fastify's own 4xx errors (body parsing, content type, size) and
    // keeps the original as `cause`: its code names the problem better than the status alone.
    const cause = exception.cause as FastifyLikeError | undefined;
    if (
      cause &&
      typeof cause === 'object' &&
      typeof cause.code === 'string' &&
      cause.code.startsWith('FST_')
    ) {
      return toProblem(cause, traceId);
    }
    if (cause instanceof AppError) return toProblem(cause, traceId);
    const status = exception.getStatus();
    const response = exception.getResponse() as string | { message?: string | string[]; code?: string };
    let message = typeof response === 'string' ? response : (response.message ?? exception.message);
    if (Array.isArray(message)) message = message.join('; ');
    const isUnknownRoute =
      status === 404 && /^Cannot (GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS)/.test(String(message));
    const code =
      (typeof response === 'object' && response.code) ||
      (isUnknownRoute
        ? CommonErrorCodes.RouteNotFound
        : (STATUS_CODES[status] ??
          (status >= 500 ? CommonErrorCodes.InternalError : CommonErrorCodes.HttpError)));
    return { status, code, message: status >= 500 ? 'Internal server error' : String(message), traceId };
  }
  const fastify = exception as FastifyLikeError;
  if (fastify && typeof fastify === 'object') {
    const known = fastify.code ? FASTIFY_CODES[fastify.code] : undefined;
    if (known)
      return {
        status: known.status,
        code: known.code,
        message: known.message ?? fastify.message ?? known.code,
        traceId,
      };
    if (fastify.name === 'SyntaxError' && fastify.statusCode === 400) {
      return {
        status: 400,
        code: CommonErrorCodes.MalformedJson,
        message: `Malformed JSON: ${fastify.message}`,
        traceId,
      };
    }
    if (typeof fastify.statusCode === 'number' && fastify.statusCode >= 400 && fastify.statusCode < 500) {
      return {
        status: fastify.statusCode,
        code: STATUS_CODES[fastify.statusCode] ?? CommonErrorCodes.BadRequest,
        message: fastify.message ?? 'Bad request',
        traceId,
      };
    }
  }
  return { status: 500, code: CommonErrorCodes.InternalError, message: 'Internal server error', traceId };
}

interface ReplyLike {
  status(code: number): ReplyLike;
  header(name: string, value: string): ReplyLike;
  send(body: unknown): void;
  sent?: boolean;
}

/**
 * The one place an error becomes a response: the envelope of the path's family, the trace id
 * (correlation id) in the body and header, 5xx logged with the stack.
 */
@Catch()
export class AllExceptionsFilter implements ExceptionFilter {
  private readonly logger = new Logger('Errors');

  constructor(private readonly selectEnvelope: EnvelopeSelector) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    if (host.getType() !== 'http') {
      this.logger.error(exception instanceof Error ? exception : String(exception));
      return;
    }
    const http = host.switchToHttp();
    const request = http.getRequest<{
      url?: string;
      raw?: { url?: string };
      headers?: Record<string, unknown>;
    }>();
    const reply = http.getResponse<ReplyLike>();
    const traceId = RequestContext.correlationId() ?? randomUUID();
    const problem = toProblem(exception, traceId);
    if (problem.status >= 500) {
      this.logger.error({
        msg: 'Unhandled error',
        traceId,
        err: exception instanceof Error ? { message: exception.message, stack: exception.stack } : exception,
      });
    }
    const path = (request?.url ?? request?.raw?.url ?? '/').split('?')[0];
    const body = this.selectEnvelope(path)(problem);
    const headers: Record<string, string> = {
      'content-type': 'application/json; charset=utf-8',
      'x-correlation-id': traceId,
      ...problem.headers,
    };
    if (typeof reply.status === 'function') {
      // A Fastify reply (route handlers, guards, pipes, parsers).
      if (reply.sent) return;
      reply.status(problem.status);
      for (const [name, value] of Object.entries(headers)) reply.header(name, value);
      reply.send(body);
      return;
    }
    // A raw Node response (errors thrown by middleware, before Fastify's reply exists).
    const raw = reply as unknown as ServerResponse;
    if (raw.headersSent) return;
    raw.statusCode = problem.status;
    for (const [name, value] of Object.entries(headers)) raw.setHeader(name, value);
    raw.end(JSON.stringify(body));
  }
}
