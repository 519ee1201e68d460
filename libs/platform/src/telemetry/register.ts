// Preload entry: `node --require @arbiter/platform/dist/telemetry/register.js dist/main.js`.
import { startTelemetry } from './telemetry';

startTelemetry(process.env.OTEL_SERVICE_NAME ?? 'arbiter');
