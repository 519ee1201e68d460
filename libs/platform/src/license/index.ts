export * from './license-runtime';
