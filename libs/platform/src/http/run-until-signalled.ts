import { stopTelemetry } from '../telemetry/telemetry';

interface Closable {
  close(): Promise<void>;
}

/**
 * Graceful shutdown for deployables: on SIGTERM/SIGINT stop accepting connections, let in-flight
 * requests finish (Fastify answers 503 to new ones meanwhile), run every shutdown hook (event bus
 * drained, audit buffers flushed, pools closed), flush telemetry, exit 0. A second signal or a hung
 * close (past `timeoutMs`) exits 1.
 */
export function runUntilSignalled(
  closables: Closable[],
  options: { timeoutMs?: number; write?: (line: string) => void } = {},
): void {
  const write = options.write ?? ((line: string) => process.stderr.write(`${line}\n`));
  let stopping = false;
  const shutdown = async (signal: NodeJS.Signals) => {
    if (stopping) {
      write(`${signal} again: exiting now`);
      process.exit(1);
    }
    stopping = true;
    write(`${signal}: draining in-flight requests and closing`);
    const timer = setTimeout(() => {
      write(`shutdown took longer than ${options.timeoutMs ?? 15_000} ms; exiting`);
      process.exit(1);
    }, options.timeoutMs ?? 15_000);
    timer.unref();
    const results = await Promise.allSettled(closables.map((c) => c.close()));
    await stopTelemetry();
    const failed = results.filter((r) => r.status === 'rejected');
    for (const f of failed) write(`close failed: ${String((f as PromiseRejectedResult).reason)}`);
    process.exit(failed.length ? 1 : 0);
  };
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
  process.once('SIGINT', () => void shutdown('SIGINT'));
}
