export * from './test-database';
export * from './start-for-test';
export * from './migrated-database';
export * from './contract';
export * from './liveness-probe';
export * from './nats-server';
export * from './license-proof';
