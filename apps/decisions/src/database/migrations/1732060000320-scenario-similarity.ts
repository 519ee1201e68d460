import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Near-duplicate removal by vector similarity: a plan records how many scenarios it dropped as near
 * duplicates and which embedding answered (a model's `openai:<model>`, or the local `local-facts-hash-v1`).
 */
export class ScenarioSimilarity1732060000320 implements MigrationInterface {
  name = 'ScenarioSimilarity1732060000320';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(
      `ALTER TABLE scenario_plans ADD COLUMN IF NOT EXISTS near_duplicates_removed int NOT NULL DEFAULT 0`,
    );
    await runner.query(`ALTER TABLE scenario_plans ADD COLUMN IF NOT EXISTS embedding_model_used text NULL`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('ALTER TABLE scenario_plans DROP COLUMN IF EXISTS embedding_model_used');
    await runner.query('ALTER TABLE scenario_plans DROP COLUMN IF EXISTS near_duplicates_removed');
  }
}
