import { runUntilSignalled, startTelemetry } from '@arbiter/platform';

startTelemetry('arbiter-decisions');

// Loaded after telemetry so HTTP, Fastify and pg are instrumented.
const { startDecisions } = require('./service') as typeof import('./service');

startDecisions()
  .then((service) => runUntilSignalled([service]))
  .catch((error: Error) => {
    process.stderr.write(`decisions failed to start: ${error.message}\n`);
    process.exit(1);
  });
