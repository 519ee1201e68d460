export * from './request-context';
export * from './request-context.middleware';
