import { Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { ExecutionModule } from '../execution';
import { RuleSetsModule } from '../rulesets';
import { ApiRouteCatalog } from './application/api-routes';
import { ContractsService } from './application/contracts.service';
import { RuleCatalog } from './application/rule-catalog';
import { StaticContracts } from './application/static-contracts';
import { UiCatalogService } from './application/ui-catalog.service';
import { SqlWorkflowDocuments, WorkflowDocuments } from './application/workflow-documents';
import { ContractsController } from './http/contracts.controller';
import { RuleCatalogController } from './http/rule-catalog.controller';
import { UiCatalogController } from './http/ui-catalog.controller';

/** Contract metadata, rule catalog and the ui-catalog endpoints. */
@Module({
  imports: [DiscoveryModule, RuleSetsModule, ExecutionModule],
  controllers: [RuleCatalogController, ContractsController, UiCatalogController],
  providers: [
    RuleCatalog,
    StaticContracts,
    { provide: WorkflowDocuments, useClass: SqlWorkflowDocuments },
    ContractsService,
    ApiRouteCatalog,
    UiCatalogService,
  ],
  exports: [RuleCatalog, ContractsService],
})
export class CatalogModule {}
