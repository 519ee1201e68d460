import { runUntilSignalled, startTelemetry } from '@arbiter/platform';

startTelemetry('arbiter-identity');

// Loaded after telemetry so HTTP, Fastify and pg are instrumented.
const { startIdentity } = require('./service') as typeof import('./service');

startIdentity()
  .then((service) => runUntilSignalled([service]))
  .catch((error: Error) => {
    process.stderr.write(`identity failed to start: ${error.message}\n`);
    process.exit(1);
  });
