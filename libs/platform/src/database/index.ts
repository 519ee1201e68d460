export * from './connection-string';
export * from './embedded-postgres';
export * from './tenant-isolation';
export * from './database.settings';
export * from './database';
export * from './unit-of-work';
export * from './database.module';
export * from './pg-binary';
