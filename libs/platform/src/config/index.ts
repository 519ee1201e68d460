export * from './environment';
export * from './configuration';
export * from './config-binding';
export * from './configuration.module';
