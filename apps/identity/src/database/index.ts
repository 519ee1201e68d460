export * from './migrations';
