import { Module } from '@nestjs/common';
import { DecisionTablesModule } from '../decision-tables';
import { AiProposalsService } from './application/ai-proposals.service';
import { ScenarioPlansService } from './application/scenario-plans.service';
import { ScenarioRunsService } from './application/scenario-runs.service';
import { ScenarioSimilarity } from './application/scenario-similarity';
import { ScenarioWorkers } from './application/scenario-workers';
import { WorkflowScenariosService } from './application/workflow-scenarios.service';
import { ScenariosController } from './http/scenarios.controller';
import { ScenarioRepository, TypeOrmScenarioRepository } from './persistence/scenario.repository';

/**
 * Generated test scenarios of decision tables and of control-plane workflows (rule sets, flows): plans,
 * runs, the CI gate, statistics, AI proposals.
 */
@Module({
  imports: [DecisionTablesModule],
  controllers: [ScenariosController],
  providers: [
    { provide: ScenarioRepository, useClass: TypeOrmScenarioRepository },
    ScenarioPlansService,
    ScenarioRunsService,
    AiProposalsService,
    WorkflowScenariosService,
    ScenarioSimilarity,
    ScenarioWorkers,
  ],
})
export class ScenariosModule {}
