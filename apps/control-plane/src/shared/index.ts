export * from './iso';
export * from './request-params';
export * from './openapi-schemas';
export * from './operator-permissions';
