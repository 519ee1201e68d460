import { ensureApplicationRole, migrationApplicationRole } from '@arbiter/platform';
import { MigrationInterface, QueryRunner } from 'typeorm';

/** The non-superuser, non-owner role every unit of work runs as (row-level security applies to it). */
export class ApplicationRole1732060000001 implements MigrationInterface {
  name = 'ApplicationRole1732060000001';

  async up(runner: QueryRunner): Promise<void> {
    await ensureApplicationRole(runner, migrationApplicationRole());
  }

  async down(): Promise<void> {
    // Roles are cluster-wide and may be shared with other services: never dropped here.
  }
}
