// Keep test output readable: framework logs are silenced unless TEST_LOGS is set.
process.env.ARBITER_LOG_LEVEL ??= process.env.TEST_LOGS ? 'debug' : 'silent';
if (!process.env.TEST_LOGS) {
  require('@nestjs/common').Logger.overrideLogger(false);
}
