import { startTelemetry } from '@arbiter/platform';

startTelemetry('arbiter-control-plane');

// Loaded after telemetry so HTTP, Fastify and pg are instrumented.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { startControlPlane } = require('./service') as typeof import('./service');

startControlPlane({ handleSignals: true }).catch((error: Error) => {
  process.stderr.write(`control-plane failed to start: ${error.message}\n`);
  process.exit(1);
});
