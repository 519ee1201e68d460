export { DecisionTablesModule } from './decision-tables.module';
export { DecisionTableErrorFamily, DecisionTableErrors } from './errors';
export { EvaluateRouteDocumentation } from './http/evaluate.route.docs';
export { DECISION_TABLE_ENTITIES } from './persistence/entities';
export { DecisionTableAuthoringService } from './application/decision-table-authoring.service';
export type { DecisionTableView } from './application/table-model';
