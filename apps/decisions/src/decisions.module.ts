import { ServiceContext, ServiceFoundationModule } from '@arbiter/platform';
import { DynamicModule, Module } from '@nestjs/common';
import { DecisionsAuthModule } from './auth/decisions-auth.module';
import { DECISIONS_MIGRATIONS } from './database/migrations';
import { DECISION_TABLE_ENTITIES, DecisionTablesModule } from './decision-tables';
import { EVENT_WINDOW_ENTITIES, EventWindowsModule } from './event-windows';
import { SCENARIO_ENTITIES, ScenariosModule } from './scenarios';
import { DECISIONS_SETTINGS } from './settings/decisions.settings';

@Module({})
export class DecisionsModule {
  static register(context: ServiceContext): DynamicModule {
    return {
      module: DecisionsModule,
      imports: [
        ServiceFoundationModule.register({
          name: 'decisions',
          context,
          settings: DECISIONS_SETTINGS,
          database: {
            connectionStringKey: 'ConnectionStrings:DecisionTablesDb',
            entities: [...DECISION_TABLE_ENTITIES, ...EVENT_WINDOW_ENTITIES, ...SCENARIO_ENTITIES],
            migrations: DECISIONS_MIGRATIONS,
          },
        }),
        DecisionsAuthModule,
        DecisionTablesModule,
        EventWindowsModule,
        ScenariosModule,
      ],
    };
  }
}
