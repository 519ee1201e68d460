import { DynamicModule, Module } from '@nestjs/common';
import { ConfigurationModule } from '../config/configuration.module';
import { DatabaseModule } from '../database/database.module';
import type { EmbeddedExtension, EntityClass, MigrationClass } from '../database/database.settings';
import { EventBusModule } from '../events/event-bus.module';
import { HealthModule } from '../health/health.module';
import { LicenseRuntimeModule, LicenseRuntimeSettings } from '../license/license-runtime';
import { PlatformHttpModule } from './platform-http.module';
import type { ServiceContext } from './service-host';

export interface ServiceFoundationOptions {
  /** Short service name: health report, CloudEvents source `/arbiter/<name>`. */
  name: string;
  context: ServiceContext;
  /** Settings classes, bound and validated at startup. */
  settings: (new () => object)[];
  database: {
    connectionStringKey: string;
    entities: EntityClass[];
    migrations: MigrationClass[];
    embeddedExtensions?: EmbeddedExtension[];
  };
  /** Extra `/health` dependencies (HealthIndicator providers). */
  healthIndicators?: any[];
}

/**
 * What every Arbiter service stands on, in one import: validated configuration, its database (with
 * row-level security and migrations), the event bus, `/health`, and the request-context pipeline step.
 */
@Module({})
export class ServiceFoundationModule {
  static register(options: ServiceFoundationOptions): DynamicModule {
    const { context } = options;
    return {
      module: ServiceFoundationModule,
      imports: [
        ConfigurationModule.forRoot({
          configuration: context.configuration,
          environment: context.environment,
          settings: options.settings.includes(LicenseRuntimeSettings)
            ? options.settings
            : [...options.settings, LicenseRuntimeSettings],
        }),
        DatabaseModule.forRoot(options.database),
        EventBusModule.forRoot({ source: `/arbiter/${options.name}`, shared: context.sharedBus }),
        HealthModule.forRoot({ service: options.name, indicators: options.healthIndicators }),
        PlatformHttpModule,
        LicenseRuntimeModule,
      ],
    };
  }
}
