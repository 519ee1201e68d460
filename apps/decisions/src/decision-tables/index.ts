export { DecisionTablesModule } from './decision-tables.module';
export { DecisionTableErrorFamily, DecisionTableErrors } from './errors';
export { EvaluateRouteDocumentation } from './http/evaluate.route.docs';
export { DECISION_TABLE_ENTITIES } from './persistence/entities';
