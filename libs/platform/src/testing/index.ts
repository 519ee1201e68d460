export * from './test-database';
export * from './start-for-test';
