import { ServiceContext, ServiceFoundationModule } from '@arbiter/platform';
import { DynamicModule, Module } from '@nestjs/common';
import { IdentityAuthModule } from './auth';
import { IDENTITY_MIGRATIONS } from './database/migrations';
import { EXPERIENCE_HEALTH_INDICATORS, ExperienceModule } from './experience';
import { LicenseModule } from './license';
import { IDENTITY_SETTINGS } from './settings/identity.settings';

@Module({})
export class IdentityModule {
  static register(context: ServiceContext): DynamicModule {
    return {
      module: IdentityModule,
      imports: [
        ServiceFoundationModule.register({
          name: 'identity',
          context,
          settings: IDENTITY_SETTINGS,
          database: {
            connectionStringKey: 'ConnectionStrings:LicenseDb',
            entities: [],
            migrations: IDENTITY_MIGRATIONS,
            embeddedExtensions: ['vector'],
          },
          healthIndicators: EXPERIENCE_HEALTH_INDICATORS,
        }),
        IdentityAuthModule.register(context.configuration.get('ApiVersioning:DefaultApiVersion') ?? '1'),
        LicenseModule,
        ExperienceModule,
      ],
    };
  }
}
