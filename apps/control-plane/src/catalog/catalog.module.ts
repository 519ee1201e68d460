import { Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { ExecutionModule } from '../execution';
import { RuleSetsModule } from '../rulesets';
import { ApiRouteCatalog } from './application/api-routes';
import { ContractsService } from './application/contracts.service';
import { RuleCatalog } from './application/rule-catalog';
import { StaticContracts } from './application/static-contracts';
import { UiCatalogService } from './application/ui-catalog.service';
import { RuleSetWorkflowDocuments, WorkflowDocuments } from './application/workflow-documents';
import { ContractsController } from './http/contracts.controller';
import { RuleCatalogController } from './http/rule-catalog.controller';
import { UiCatalogController } from './http/ui-catalog.controller';
import { UiCatalogSnapshotRepository } from './persistence/snapshot.repository';

/** Contract metadata, rule catalog and the ui-catalog endpoints. */
@Module({
  imports: [DiscoveryModule, RuleSetsModule, ExecutionModule],
  controllers: [RuleCatalogController, ContractsController, UiCatalogController],
  providers: [
    RuleCatalog,
    StaticContracts,
    { provide: WorkflowDocuments, useClass: RuleSetWorkflowDocuments },
    ContractsService,
    ApiRouteCatalog,
    UiCatalogSnapshotRepository,
    UiCatalogService,
  ],
  exports: [RuleCatalog, ContractsService],
})
export class CatalogModule {}
