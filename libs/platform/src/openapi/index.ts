export * from './api-decorators';
export * from './error-family';
export * from './fields';
export * from './openapi-document';
export * from './opaque-json';
