export { ExecutionAuditModule } from './execution-audit.module';
export * from './execution-record';
export { EXECUTION_AUDIT_ENTITIES } from './entities';
export { EXECUTION_AUDIT_SETTINGS } from './execution-audit.settings';
export { ExecutionAuditErrorFamily, ExecutionAuditErrors } from './execution-audit-errors';
