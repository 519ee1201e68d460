import {
  ConfigurationModule,
  DatabaseModule,
  EventBusModule,
  HealthModule,
  PlatformHttpModule,
  ServiceContext,
} from '@arbiter/platform';
import { DynamicModule, Module } from '@nestjs/common';
import { ControlPlaneAuthModule } from './auth/control-plane-auth.module';
import { CONTROL_PLANE_MIGRATIONS } from './database/migrations';
import { RULE_SET_ENTITIES } from './rulesets/persistence/entities';
import { RuleSetsModule } from './rulesets/rulesets.module';
import { RuntimeInfoController } from './runtime-info/runtime-info.controller';
import { CONTROL_PLANE_SETTINGS } from './settings/control-plane.settings';

@Module({})
export class ControlPlaneModule {
  static register(context: ServiceContext): DynamicModule {
    return {
      module: ControlPlaneModule,
      imports: [
        ConfigurationModule.forRoot({
          configuration: context.configuration,
          environment: context.environment,
          settings: CONTROL_PLANE_SETTINGS,
        }),
        DatabaseModule.forRoot({
          connectionStringKey: 'ConnectionStrings:RuleControlPlaneDb',
          entities: [...RULE_SET_ENTITIES],
          migrations: CONTROL_PLANE_MIGRATIONS,
        }),
        EventBusModule.forRoot({ source: '/arbiter/control-plane', shared: context.sharedBus }),
        HealthModule.forRoot({ service: 'control-plane' }),
        PlatformHttpModule,
        ControlPlaneAuthModule,
        RuleSetsModule,
      ],
      controllers: [RuntimeInfoController],
    };
  }
}
