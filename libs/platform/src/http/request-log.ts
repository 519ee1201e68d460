import { Logger, LoggerService } from '@nestjs/common';

/** One line per completed request. */
export interface CompletedRequest {
  method: string;
  url: string;
  statusCode: number;
  durationMs: number;
  correlationId: unknown;
}

/** Writes a completed request's line; `logsSuccesses` false: callers need not build the entry of a success. */
export type RequestLog = ((request: CompletedRequest) => void) & { readonly logsSuccesses: boolean };

/**
 * The request log of a service: failures (status ≥ 400) at info, successes at debug; when debug is off a
 * success's entry is not even built (hot paths stay quiet).
 */
export function createRequestLog(rootLogger: LoggerService): RequestLog {
  const logger = new Logger('Http');
  const withLevel = rootLogger as { isLevelEnabled?: (level: 'debug') => boolean };
  const logSuccesses = withLevel.isLevelEnabled?.('debug') ?? true;
  const log = (request: CompletedRequest) => {
    if (request.statusCode < 400 && !logSuccesses) return;
    const entry = {
      msg: 'request completed',
      method: request.method,
      url: request.url,
      statusCode: request.statusCode,
      durationMs: Math.round(request.durationMs * 100) / 100,
      correlationId: request.correlationId,
    };
    if (request.statusCode >= 400) logger.log(entry);
    else logger.debug(entry);
  };
  return Object.assign(log, { logsSuccesses: logSuccesses });
}

/** Where createHttpApp leaves the service's request log on its Fastify instance (read by hot routes). */
export const REQUEST_LOG = Symbol.for('arbiter.requestLog');
