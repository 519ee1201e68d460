export { ExecutionModule } from './execution.module';
export * from './execution.settings';
export { DryRunService } from './dry-run.service';
export { DecisionTableClient } from './adapters/decision-table-client';
export { ExecuteRouteDocumentation } from './execute.documentation';
export { ExecutionErrorCodes, ExecutionErrorFamily } from './execution-errors';
