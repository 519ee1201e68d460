import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `execution_audit_row`, the composite type a batch of audit entries travels as (`$1::execution_audit_row[]`
 * in binary form, see `execution-audit/audit-row.ts`): its fields are the columns of `execution_audit`, in
 * order and of the same types. A type is usable by every role (PUBLIC holds USAGE on new types).
 */
export class ExecutionAuditRowType1732060000700 implements MigrationInterface {
  name = 'ExecutionAuditRowType1732060000700';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      DO $$ BEGIN
        IF to_regtype('execution_audit_row') IS NULL THEN
          CREATE TYPE execution_audit_row AS (
            execution_id uuid,
            tenant_id text,
            workflow_name text,
            version int,
            correlation_id text,
            executed_at timestamptz,
            execution_time_ms double precision,
            rules_matched jsonb,
            status text,
            error_codes text[],
            arm text,
            rollout_id text,
            mode text,
            shadow_diff jsonb
          );
        END IF;
      END $$`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('DROP TYPE IF EXISTS execution_audit_row');
  }
}
