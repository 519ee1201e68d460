import {
  ConfigurationModule,
  DatabaseModule,
  EventBusModule,
  HealthModule,
  PlatformHttpModule,
  ServiceContext,
} from '@arbiter/platform';
import { DynamicModule, Module } from '@nestjs/common';
import { IdentityAuthModule } from './auth/identity-auth.module';
import { IDENTITY_MIGRATIONS } from './database/migrations';
import { IDENTITY_SETTINGS } from './settings/identity.settings';

@Module({})
export class IdentityModule {
  static register(context: ServiceContext): DynamicModule {
    return {
      module: IdentityModule,
      imports: [
        ConfigurationModule.forRoot({
          configuration: context.configuration,
          environment: context.environment,
          settings: IDENTITY_SETTINGS,
        }),
        DatabaseModule.forRoot({
          connectionStringKey: 'ConnectionStrings:LicenseDb',
          entities: [],
          migrations: IDENTITY_MIGRATIONS,
        }),
        EventBusModule.forRoot({ source: '/arbiter/identity', shared: context.sharedBus }),
        HealthModule.forRoot({ service: 'identity' }),
        PlatformHttpModule,
        IdentityAuthModule.register(context.configuration.get('ApiVersioning:DefaultApiVersion') ?? '1'),
      ],
    };
  }
}
