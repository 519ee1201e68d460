/**
 * OpenTelemetry bootstrap. Started only when `OTEL_EXPORTER_OTLP_ENDPOINT` is set, before Nest and the
 * database drivers are loaded (`node --require @arbiter/platform/dist/telemetry/register.js …`, or the
 * launcher calls `startTelemetry` first). HTTP, Fastify and pg are instrumented automatically; NATS
 * carries the trace context in the CloudEvent `traceparent` and message headers (see EventBus).
 */
let sdk: { shutdown(): Promise<void> } | null = null;

export function startTelemetry(serviceName: string, env: NodeJS.ProcessEnv = process.env): boolean {
  if (sdk || !env.OTEL_EXPORTER_OTLP_ENDPOINT) return false;
  const { NodeSDK } = require('@opentelemetry/sdk-node');
  const { getNodeAutoInstrumentations } = require('@opentelemetry/auto-instrumentations-node');
  const { OTLPTraceExporter } = require('@opentelemetry/exporter-trace-otlp-http');
  const instance = new NodeSDK({
    serviceName: env.OTEL_SERVICE_NAME ?? serviceName,
    traceExporter: new OTLPTraceExporter(),
    instrumentations: [
      getNodeAutoInstrumentations({
        '@opentelemetry/instrumentation-fs': { enabled: false },
        '@opentelemetry/instrumentation-dns': { enabled: false },
        '@opentelemetry/instrumentation-net': { enabled: false },
      }),
    ],
  });
  instance.start();
  sdk = instance;
  return true;
}

/** Flushes pending spans; called during graceful shutdown. */
export async function stopTelemetry(): Promise<void> {
  const current = sdk;
  sdk = null;
  await current?.shutdown().catch(() => undefined);
}
