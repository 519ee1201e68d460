import { ServiceContext, ServiceFoundationModule } from '@arbiter/platform';
import { DynamicModule, Module } from '@nestjs/common';
import { ControlPlaneAuthModule } from './auth/control-plane-auth.module';
import { CanaryModule } from './canary/canary.module';
import { CatalogModule } from './catalog/catalog.module';
import { ExecutionAuditModule } from './execution-audit/execution-audit.module';
import { ExecutionModule } from './execution/execution.module';
import { QuotasModule } from './quotas/quotas.module';
import { ToolsModule } from './tools/tools.module';
import { CONTROL_PLANE_MIGRATIONS } from './database/migrations';
import { CANARY_ENTITIES } from './canary/entities';
import { CATALOG_ENTITIES } from './catalog/entities';
import { EXECUTION_AUDIT_ENTITIES } from './execution-audit/entities';
import { QUOTA_ENTITIES } from './quotas/entities';
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
        ServiceFoundationModule.register({
          name: 'control-plane',
          context,
          settings: CONTROL_PLANE_SETTINGS,
          database: {
            connectionStringKey: 'ConnectionStrings:RuleControlPlaneDb',
            entities: [
              ...RULE_SET_ENTITIES,
              ...EXECUTION_AUDIT_ENTITIES,
              ...CANARY_ENTITIES,
              ...QUOTA_ENTITIES,
              ...CATALOG_ENTITIES,
            ],
            migrations: CONTROL_PLANE_MIGRATIONS,
          },
        }),
        ControlPlaneAuthModule,
        RuleSetsModule,
        ExecutionAuditModule,
        CanaryModule,
        QuotasModule,
        CatalogModule,
        ExecutionModule,
        ToolsModule,
      ],
      controllers: [RuntimeInfoController],
    };
  }
}
