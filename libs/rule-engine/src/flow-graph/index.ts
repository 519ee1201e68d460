export * from './flow-graph';
