import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `execution_audit.execution_id` becomes a `uuid` (16 bytes, compared as a number) instead of text (36 bytes
 * compared by collation): the primary key and the workflow index that ends with it are smaller and cheaper
 * to insert into. Execution ids have always been UUIDs; new ones are time-ordered (version 7), so the key
 * appends at the right edge of its b-tree.
 */
export class ExecutionAuditUuidKey1732060000600 implements MigrationInterface {
  name = 'ExecutionAuditUuidKey1732060000600';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(
      `ALTER TABLE execution_audit ALTER COLUMN execution_id TYPE uuid USING execution_id::uuid`,
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE execution_audit ALTER COLUMN execution_id TYPE text`);
  }
}
