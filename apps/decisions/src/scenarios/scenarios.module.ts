import { bindConfig, Configuration } from '@arbiter/platform';
import { Module } from '@nestjs/common';
import { DecisionTablesModule } from '../decision-tables';
import { AiProposalsService } from './application/ai-proposals.service';
import { ScenarioPlansService } from './application/scenario-plans.service';
import { ScenarioRunsService } from './application/scenario-runs.service';
import { WorkflowScenariosService } from './application/workflow-scenarios.service';
import { ScenariosController } from './http/scenarios.controller';
import { ScenarioRepository, TypeOrmScenarioRepository } from './persistence/scenario.repository';
import { ScenariosSettings } from './scenarios.settings';

/**
 * Generated test scenarios of decision tables and of control-plane workflows (rule sets, flows): plans,
 * runs, the CI gate, statistics, AI proposals.
 */
@Module({
  imports: [DecisionTablesModule],
  controllers: [ScenariosController],
  providers: [
    {
      provide: ScenariosSettings,
      inject: [Configuration],
      useFactory: (configuration: Configuration) => bindConfig(ScenariosSettings, configuration),
    },
    { provide: ScenarioRepository, useClass: TypeOrmScenarioRepository },
    ScenarioPlansService,
    ScenarioRunsService,
    AiProposalsService,
    WorkflowScenariosService,
  ],
})
export class ScenariosModule {}
