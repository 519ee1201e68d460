export * from './iso';
export * from './request-params';
