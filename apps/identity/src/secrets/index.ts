export * from './secret-provider';
