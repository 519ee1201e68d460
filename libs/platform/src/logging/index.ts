export * from './logger';
export * from './service-logger';
