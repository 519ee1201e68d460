import { enableTenantIsolation, migrationApplicationRole } from '@arbiter/platform';
import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Copilot draft provenance (spec 1, "Copilot draft provenance"): one row per rule set version a model
 * drafted, unique on (tenant, workflow, version) and tied to that version. Tenant-isolated by row-level
 * security. Tamper-evident: the application role may not DELETE rows (a discarded draft keeps its row),
 * and a trigger refuses any change except resolving `edited_before_approval` (null → true/false, once)
 * and setting `approved_at`.
 */
export class CopilotDraftProvenance1732060000900 implements MigrationInterface {
  name = 'CopilotDraftProvenance1732060000900';

  async up(runner: QueryRunner): Promise<void> {
    const role = migrationApplicationRole();
    await runner.query(`
      CREATE TABLE IF NOT EXISTS copilot_draft_provenance (
        id uuid PRIMARY KEY,
        tenant_id varchar(128) NOT NULL,
        workflow varchar(256) NOT NULL,
        version int NOT NULL,
        ai_original_hash varchar(64) NOT NULL,
        ai_original_snapshot text NOT NULL,
        generated_at timestamptz NOT NULL,
        generated_by varchar(256) NOT NULL,
        edited_before_approval boolean NULL,
        approved_at timestamptz NULL,
        CONSTRAINT uq_copilot_draft_provenance_version UNIQUE (tenant_id, workflow, version),
        CONSTRAINT ck_copilot_draft_provenance_hash CHECK (ai_original_hash ~ '^[0-9a-f]{64}$'),
        CONSTRAINT fk_copilot_draft_provenance_version FOREIGN KEY (tenant_id, workflow, version)
          REFERENCES rule_set_versions (tenant_id, workflow_name, version)
      )`);
    await runner.query(`
      CREATE OR REPLACE FUNCTION copilot_draft_provenance_guard() RETURNS trigger AS $$
      BEGIN
        IF NEW.id IS DISTINCT FROM OLD.id OR NEW.tenant_id IS DISTINCT FROM OLD.tenant_id
           OR NEW.workflow IS DISTINCT FROM OLD.workflow OR NEW.version IS DISTINCT FROM OLD.version
           OR NEW.ai_original_hash IS DISTINCT FROM OLD.ai_original_hash
           OR NEW.ai_original_snapshot IS DISTINCT FROM OLD.ai_original_snapshot
           OR NEW.generated_at IS DISTINCT FROM OLD.generated_at
           OR NEW.generated_by IS DISTINCT FROM OLD.generated_by THEN
          RAISE EXCEPTION 'copilot draft provenance is immutable (only edited_before_approval and approved_at are resolved)';
        END IF;
        IF OLD.edited_before_approval IS NOT NULL
           AND NEW.edited_before_approval IS DISTINCT FROM OLD.edited_before_approval THEN
          RAISE EXCEPTION 'edited_before_approval is resolved once';
        END IF;
        RETURN NEW;
      END $$ LANGUAGE plpgsql`);
    await runner.query(
      `DROP TRIGGER IF EXISTS tr_copilot_draft_provenance_guard ON copilot_draft_provenance`,
    );
    await runner.query(`
      CREATE TRIGGER tr_copilot_draft_provenance_guard BEFORE UPDATE ON copilot_draft_provenance
        FOR EACH ROW EXECUTE FUNCTION copilot_draft_provenance_guard()`);
    await enableTenantIsolation(runner, 'copilot_draft_provenance', role);
    await runner.query(`REVOKE DELETE ON copilot_draft_provenance FROM ${role}`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('DROP TABLE IF EXISTS copilot_draft_provenance');
    await runner.query('DROP FUNCTION IF EXISTS copilot_draft_provenance_guard');
  }
}
