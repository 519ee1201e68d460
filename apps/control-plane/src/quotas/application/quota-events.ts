import { Subjects } from '@arbiter/contracts';
export type { QuotaChangedEvent } from '@arbiter/contracts';

/** Published after a tenant's tier or limits change, so every replica reloads them at once. */
export const QUOTA_CHANGED_SUBJECT = Subjects.QuotaChanged;
