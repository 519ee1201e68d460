export { QuotasModule } from './quotas.module';
export { QuotaGate, type QuotaLease } from './application/quota-gate';
export { QuotasService } from './application/quotas.service';
export { QuotaErrorFamily, QuotaErrors } from './application/quota-errors';
export { QUOTA_CHANGED_SUBJECT, type QuotaChangedEvent } from './application/quota-events';
export * from './domain/tiers';
export { QUOTA_ENTITIES } from './entities';
export { QUOTA_SETTINGS, QuotaSettings } from './quotas.settings';
