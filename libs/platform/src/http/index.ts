export * from './create-http-app';
export * from './platform-http.module';
