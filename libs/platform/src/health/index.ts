export * from './health.service';
export * from './health.controller';
export * from './health.module';
