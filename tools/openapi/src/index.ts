export * from './breaking-changes';
export * from './documents';
export * from './lint';
export * from './record';
