import { runUntilSignalled, startTelemetry } from '@arbiter/platform';

startTelemetry('arbiter-control-plane');

// Loaded after telemetry so HTTP, Fastify and pg are instrumented.
const { startControlPlane } = require('./service') as typeof import('./service');

startControlPlane()
  .then((service) => runUntilSignalled([service]))
  .catch((error: Error) => {
    process.stderr.write(`control-plane failed to start: ${error.message}\n`);
    process.exit(1);
  });
