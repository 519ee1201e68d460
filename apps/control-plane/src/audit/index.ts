export { AuditModule } from './audit.module';
export { AUDIT_SETTINGS, AuditSigningSettings } from './audit.settings';
export { AuditSigner } from './application/audit-signer';
export { AuditTrail, type AuditChain, type AuditVerification } from './application/audit-trail';
export { AuditLog, type AuditInput } from './persistence/audit-log';
export { AUDIT_ENTITIES } from './persistence/entities';
export { AUDIT_ACTIONS, type AuditAction } from './domain/audit-actions';
export { AuditVerificationView } from './http/views';
