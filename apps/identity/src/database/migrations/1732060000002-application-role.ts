import { applicationRoleMigration, migrationApplicationRole } from '@arbiter/platform';

/** The non-superuser, non-owner role every unit of work runs as (row-level security applies to it). */
export const ApplicationRole1732060000002 = applicationRoleMigration(1732060000002, migrationApplicationRole);
