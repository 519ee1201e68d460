export * from './worker-pool';
