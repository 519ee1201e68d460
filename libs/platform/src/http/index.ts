export * from './create-http-app';
export * from './platform-http.module';
export * from './http.settings';
export * from './service-host';
export * from './run-until-signalled';
export * from './platform.module';
export * from './hot-route';
export * from './registered-routes';
