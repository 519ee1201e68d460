import { DynamicModule, Module } from '@nestjs/common';
import { HealthController } from './health.controller';
import { HEALTH_INDICATORS, HealthService, SERVICE_NAME } from './health.service';

@Module({})
export class HealthModule {
  static forRoot(options: { service: string; indicators?: any[] }): DynamicModule {
    const indicators = options.indicators ?? [];
    return {
      module: HealthModule,
      controllers: [HealthController],
      providers: [
        { provide: SERVICE_NAME, useValue: options.service },
        ...indicators,
        { provide: HEALTH_INDICATORS, inject: indicators, useFactory: (...all: unknown[]) => all },
        HealthService,
      ],
      exports: [HealthService],
    };
  }
}
