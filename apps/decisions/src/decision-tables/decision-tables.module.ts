import { bindConfig, Configuration } from '@arbiter/platform';
import { Module } from '@nestjs/common';
import { DecisionTablesSettings } from '../settings';
import { AnalysisWorkers } from './application/analysis-workers';
import { CompiledTableCache } from './application/compiled-table-cache';
import { DecisionTableAuthoringService } from './application/decision-table-authoring.service';
import { DecisionTableEvaluationService } from './application/decision-table-evaluation.service';
import { TableFeelService } from './application/table-feel.service';
import { DecisionTablesController } from './http/decision-tables.controller';
import { EvaluateHotRoute } from './http/evaluate.route';
import { FeelController } from './http/feel.controller';
import { ImportExportController } from './http/import-export.controller';
import { McpController } from './mcp/mcp.controller';
import {
  DecisionTableRepository,
  TypeOrmDecisionTableRepository,
} from './persistence/decision-table.repository';

/** Decision tables (spec 2): API, FEEL helpers, import/export, tool-protocol (MCP) endpoint. */
@Module({
  controllers: [ImportExportController, FeelController, DecisionTablesController, McpController],
  providers: [
    {
      provide: DecisionTablesSettings,
      inject: [Configuration],
      useFactory: (configuration: Configuration) => bindConfig(DecisionTablesSettings, configuration),
    },
    { provide: DecisionTableRepository, useClass: TypeOrmDecisionTableRepository },
    {
      provide: CompiledTableCache,
      inject: [DecisionTablesSettings],
      useFactory: (settings: DecisionTablesSettings) => new CompiledTableCache(settings.compiledCacheSize),
    },
    AnalysisWorkers,
    DecisionTableAuthoringService,
    DecisionTableEvaluationService,
    TableFeelService,
    EvaluateHotRoute,
  ],
  // the scenarios module reads stored versions through it
  exports: [DecisionTableAuthoringService],
})
export class DecisionTablesModule {}
