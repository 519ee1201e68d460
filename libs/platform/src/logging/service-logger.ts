import { LoggerService, LogLevel } from '@nestjs/common';
import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * Nest's logger is process-wide: every `new Logger(context)` writes through the one logger the last
 * created app installed. With several services in one process (`arbiter start`) that made every line
 * of every service carry the last one's name (`"service":"identity"`). So the installed logger is this
 * dispatcher, and each service runs its start-up, its servers (requests inherit the context of the
 * `listen` that created them), its timers, its bus subscriptions and its shutdown inside its own scope:
 * a line goes to the logger of the service whose work wrote it. Outside any scope (the launcher itself),
 * the logger of the service started last.
 */
const scope = new AsyncLocalStorage<LoggerService>();
let fallback: LoggerService | undefined;

/** Runs `fn` (and everything it starts) as the work of the service whose logger is `logger`. */
export function runAsService<T>(logger: LoggerService, fn: () => T): T {
  return scope.run(logger, fn);
}

/**
 * A runner that runs a function as the work of the service calling this now (a subscription made at
 * start-up: its handlers log as the subscriber, whoever publishes). Only the service scope changes.
 */
export function inServiceScopeOfCaller(): <T>(fn: () => T) => T {
  const logger = scope.getStore();
  return logger ? (fn) => scope.run(logger, fn) : (fn) => fn();
}

/** The logger of lines written outside every service's scope (the service started last). */
export function setDefaultServiceLogger(logger: LoggerService): void {
  fallback = logger;
}

/** The logger of the service whose work is running (undefined outside every service). */
export function currentServiceLogger(): LoggerService | undefined {
  return scope.getStore() ?? fallback;
}

const target = (): LoggerService | undefined => scope.getStore() ?? fallback;

/** What Nest is given as its (process-wide) logger: each call goes to the current service's logger. */
export const serviceScopedLogger: LoggerService = {
  log: (message: unknown, ...params: unknown[]) => target()?.log(message, ...params),
  error: (message: unknown, ...params: unknown[]) => target()?.error(message, ...params),
  warn: (message: unknown, ...params: unknown[]) => target()?.warn(message, ...params),
  debug: (message: unknown, ...params: unknown[]) => target()?.debug?.(message, ...params),
  verbose: (message: unknown, ...params: unknown[]) => target()?.verbose?.(message, ...params),
  fatal: (message: unknown, ...params: unknown[]) => target()?.fatal?.(message, ...params),
  setLogLevels: (levels: LogLevel[]) => target()?.setLogLevels?.(levels),
};
