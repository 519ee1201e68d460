import { Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { RequestContext } from '../context/request-context';
import { toProblem } from '../errors/all-exceptions.filter';
import type { EnvelopeWriter } from '../errors/error-envelope';

/** The parts of a Fastify request a hot route reads. */
export interface HotRouteRequest {
  method: string;
  url: string;
  params: Record<string, string>;
  query: Record<string, unknown>;
  headers: Record<string, unknown>;
  body: unknown;
}

export interface HotRouteDefinition {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** Fastify path syntax, e.g. `/api/v1/rule-engine/execute/:workflowName`. */
  url: string;
  /** The service family's error envelope. */
  envelope: EnvelopeWriter;
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

const logger = new Logger('Errors');

function sendProblem(reply: FastifyReplyLike, error: unknown, envelope: EnvelopeWriter) {
  const traceId = RequestContext.correlationId() ?? randomUUID();
  const problem = toProblem(error, traceId);
  if (problem.status >= 500)
    logger.error({
      msg: 'Unhandled error',
      traceId,
      err: error instanceof Error ? { message: error.message, stack: error.stack } : error,
    });
  if (reply.sent) return reply;
  reply
    .code(problem.status)
    .header('content-type', 'application/json; charset=utf-8')
    .header('x-correlation-id', traceId);
  for (const [name, value] of Object.entries(problem.headers ?? {})) reply.header(name, value);
  return reply.send(envelope(problem));
}

/**
 * A route served by Fastify directly, beside Nest's router, for a hot path where the per-request cost
 * of Nest's pipeline (router proxy, guards, pipes, interceptors, exception zone) shows. The request
 * context hook still runs first (tenant, actor, correlation id); the handler does its own authorization
 * (`AuthPipeline.authorize`) and validation, and every error gets the family's envelope exactly as the
 * exception filter writes it (body-parsing errors too). Register it before the server starts listening
 * (`onApplicationBootstrap`, with the instance from `HttpAdapterHost`).
 */
export function registerHotRoute(fastify: unknown, route: HotRouteDefinition): void {
  const status = route.status ?? 200;
  (fastify as { route(options: unknown): void }).route({
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
}
