import { LoggerService, LogLevel } from '@nestjs/common';
import pino, { Logger } from 'pino';
import { RequestContext } from '../context/request-context';

/**
 * Structured JSON logs (pino) carrying the correlation id and tenant of the current request.
 * `ARBITER_LOG_LEVEL` (or `Logging:LogLevel:Default`) sets the level; `silent` in tests by default.
 */
export function createRootLogger(options: { service: string; level?: string }): Logger {
  return pino({
    name: options.service,
    level: options.level ?? process.env.ARBITER_LOG_LEVEL ?? 'info',
    base: { service: options.service },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
    mixin() {
      const context = RequestContext.current();
      return context ? { correlationId: context.correlationId, tenantId: context.tenantId } : {};
    },
  });
}

const FRAMEWORK_CHATTER = new Set([
  'InstanceLoader',
  'RoutesResolver',
  'RouterExplorer',
  'NestFactory',
  'NestApplication',
  'NestMicroservice',
]);

/** Nest's logger contract over pino, so framework messages are structured too. */
export class JsonLogger implements LoggerService {
  constructor(readonly pino: Logger) {}

  /** Lets hot paths skip building entries that would be dropped (`debug` in production, all in tests). */
  isLevelEnabled(level: 'info' | 'error' | 'warn' | 'debug' | 'trace' | 'fatal'): boolean {
    return this.pino.isLevelEnabled(level);
  }

  private write(
    level: 'info' | 'error' | 'warn' | 'debug' | 'trace' | 'fatal',
    message: unknown,
    params: unknown[],
  ) {
    const context = typeof params[params.length - 1] === 'string' ? (params.pop() as string) : undefined;
    if (message instanceof Error) {
      this.pino[level]({ context, err: message }, message.message);
    } else if (typeof message === 'object' && message !== null) {
      this.pino[level]({ context, ...message });
    } else {
      const stack = level === 'error' && typeof params[0] === 'string' ? params[0] : undefined;
      this.pino[level]({ context, ...(stack ? { stack } : {}) }, String(message));
    }
  }

  log(message: unknown, ...params: unknown[]) {
    // Nest's start-up chatter (module init, route mapping) is debug detail, not operations news.
    const context = params[params.length - 1];
    this.write(
      typeof context === 'string' && FRAMEWORK_CHATTER.has(context) ? 'debug' : 'info',
      message,
      params,
    );
  }
  error(message: unknown, ...params: unknown[]) {
    this.write('error', message, params);
  }
  warn(message: unknown, ...params: unknown[]) {
    this.write('warn', message, params);
  }
  debug(message: unknown, ...params: unknown[]) {
    this.write('debug', message, params);
  }
  verbose(message: unknown, ...params: unknown[]) {
    this.write('trace', message, params);
  }
  fatal(message: unknown, ...params: unknown[]) {
    this.write('fatal', message, params);
  }
  setLogLevels(levels: LogLevel[]) {
    const order: LogLevel[] = ['verbose', 'debug', 'log', 'warn', 'error', 'fatal'];
    const lowest = order.find((l) => levels.includes(l)) ?? 'log';
    this.pino.level = {
      verbose: 'trace',
      debug: 'debug',
      log: 'info',
      warn: 'warn',
      error: 'error',
      fatal: 'fatal',
    }[lowest];
  }
}
