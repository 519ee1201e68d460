export { ScenariosModule } from './scenarios.module';
export { ScenarioErrorFamily, ScenarioErrors } from './errors';
export { SCENARIO_ENTITIES } from './persistence/entities';
