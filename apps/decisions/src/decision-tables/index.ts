export { DecisionTablesModule } from './decision-tables.module';
export { DECISION_TABLE_ENTITIES } from './persistence/entities';
