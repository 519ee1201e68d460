import { crossTenantReaderMigration, migrationApplicationRole } from '@arbiter/platform';

/**
 * Cross-tenant reads run as their own SELECT-only role: the tenant policies of a database migrated
 * before no longer honour the `app.all_tenants` setting the application role could set itself.
 */
export const CrossTenantReader1732060002402 = crossTenantReaderMigration(
  1732060002402,
  migrationApplicationRole,
);
