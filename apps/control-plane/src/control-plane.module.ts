import { ServiceContext, ServiceFoundationModule } from '@arbiter/platform';
import { DynamicModule, Module } from '@nestjs/common';
import { AUDIT_ENTITIES, AuditModule } from './audit';
import { ControlPlaneAuthModule } from './auth/control-plane-auth.module';
import { CANARY_ENTITIES, CanaryModule } from './canary';
import { CATALOG_ENTITIES, CatalogModule } from './catalog';
import { COPILOT_ENTITIES, CopilotModule } from './copilot';
import { CONTROL_PLANE_MIGRATIONS } from './database/migrations';
import { EXECUTION_AUDIT_ENTITIES, ExecutionAuditModule } from './execution-audit';
import { ExecutionModule } from './execution';
import { QUOTA_ENTITIES, QuotasModule } from './quotas';
import { RULE_SET_ENTITIES, RuleSetsModule } from './rulesets';
import { ToolsModule } from './tools';
import { RuntimeInfoController } from './runtime-info/runtime-info.controller';
import { CONTROL_PLANE_SETTINGS } from './settings/control-plane.settings';

@Module({})
export class ControlPlaneModule {
  static register(context: ServiceContext): DynamicModule {
    return {
      module: ControlPlaneModule,
      imports: [
        ServiceFoundationModule.register({
          name: 'control-plane',
          context,
          settings: CONTROL_PLANE_SETTINGS,
          database: {
            connectionStringKey: 'ConnectionStrings:RuleControlPlaneDb',
            entities: [
              ...RULE_SET_ENTITIES,
              ...AUDIT_ENTITIES,
              ...EXECUTION_AUDIT_ENTITIES,
              ...CANARY_ENTITIES,
              ...QUOTA_ENTITIES,
              ...CATALOG_ENTITIES,
              ...COPILOT_ENTITIES,
            ],
            migrations: CONTROL_PLANE_MIGRATIONS,
          },
        }),
        ControlPlaneAuthModule,
        AuditModule,
        RuleSetsModule,
        ExecutionAuditModule,
        CanaryModule,
        QuotasModule,
        CatalogModule,
        ExecutionModule,
        CopilotModule,
        ToolsModule,
      ],
      controllers: [RuntimeInfoController],
    };
  }
}
