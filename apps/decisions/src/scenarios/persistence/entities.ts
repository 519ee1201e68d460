import type { ExpectedBehavior, FailureFinding, ScenarioOrigin } from '@arbiter/scenarios';
import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * The scenario plan of one decision table or one control-plane workflow (one per table / workflow;
 * regenerating replaces its unconfirmed scenarios).
 */
@Entity({ name: 'scenario_plans' })
export class ScenarioPlanEntity {
  @PrimaryColumn('uuid') id!: string;
  @Column({ name: 'tenant_id', type: 'text' }) tenantId!: string;
  @Column({ name: 'table_id', type: 'uuid', nullable: true }) tableId!: string | null;
  @Column({ name: 'table_version', type: 'int', nullable: true }) tableVersion!: number | null;
  @Column({ name: 'workflow_name', type: 'text', nullable: true }) workflowName!: string | null;
  /** the workflow version the expectations were generated from */
  @Column({ name: 'workflow_version', type: 'int', nullable: true }) workflowVersion!: number | null;
  @Column({ name: 'seed_rule_code', type: 'text' }) seedRuleCode!: string;
  @Column({ type: 'text' }) scope!: string;
  @Column({ type: 'bigint', transformer: { to: (v: number) => v, from: (v: string | number) => Number(v) } })
  seed!: number;
  @Column({ name: 'ai_model_used', type: 'text', nullable: true }) aiModelUsed!: string | null;
  @Column({ name: 'generation_duration', type: 'double precision' }) generationDuration!: number;
  @Column({ type: 'int' }) candidates!: number;
  @Column({ name: 'duplicates_removed', type: 'int' }) duplicatesRemoved!: number;
  /** of `duplicatesRemoved`, those dropped as near duplicates (vector similarity) */
  @Column({ name: 'near_duplicates_removed', type: 'int', default: 0 }) nearDuplicatesRemoved!: number;
  /** the embedding that judged near duplicates (`openai:<model>`, `local-facts-hash-v1`; null: hash only) */
  @Column({ name: 'embedding_model_used', type: 'text', nullable: true }) embeddingModelUsed!: string | null;
  @Column({ name: 'created_by', type: 'text' }) createdBy!: string;
  @Column({ name: 'created_at', type: 'timestamptz' }) createdAt!: Date;
  @Column({ name: 'modified_at', type: 'timestamptz' }) modifiedAt!: Date;
}

@Entity({ name: 'scenarios' })
export class ScenarioEntity {
  @PrimaryColumn('uuid') id!: string;
  @Column({ name: 'tenant_id', type: 'text' }) tenantId!: string;
  @Column({ name: 'plan_id', type: 'uuid' }) planId!: string;
  @Column({ type: 'int' }) position!: number;
  @Column({ name: 'seed_rule_code', type: 'text' }) seedRuleCode!: string;
  @Column({ name: 'scenario_name', type: 'text' }) scenarioName!: string;
  @Column({ type: 'text' }) type!: string;
  @Column({ type: 'text' }) scope!: string;
  @Column({ name: 'input_facts', type: 'jsonb' }) inputFacts!: Record<string, unknown>;
  @Column({ name: 'input_hash', type: 'text' }) inputHash!: string;
  @Column({ name: 'expected_behavior', type: 'jsonb' }) expectedBehavior!: ExpectedBehavior;
  @Column({ type: 'jsonb' }) origin!: ScenarioOrigin;
  @Column({ type: 'text' }) status!: string;
  @Column({ type: 'boolean' }) confirmed!: boolean;
  @Column({ name: 'confirmed_by', type: 'text', nullable: true }) confirmedBy!: string | null;
  @Column({ name: 'confirmed_at', type: 'timestamptz', nullable: true }) confirmedAt!: Date | null;
  @Column({ name: 'created_at', type: 'timestamptz' }) createdAt!: Date;
}

@Entity({ name: 'scenario_runs' })
export class ScenarioRunEntity {
  @PrimaryColumn('uuid') id!: string;
  @Column({ name: 'tenant_id', type: 'text' }) tenantId!: string;
  @Column({ name: 'plan_id', type: 'uuid' }) planId!: string;
  /** the version run against: the table's, or the workflow's for a workflow plan */
  @Column({ name: 'table_version', type: 'int' }) tableVersion!: number;
  /** `Run` or `Gate` */
  @Column({ type: 'text' }) kind!: string;
  @Column({ type: 'int' }) passed!: number;
  @Column({ type: 'int' }) failed!: number;
  @Column({ type: 'int' }) errored!: number;
  @Column({ type: 'jsonb' }) coverage!: Record<string, unknown>;
  @Column({ type: 'jsonb', nullable: true }) mutation!: Record<string, unknown> | null;
  @Column({ type: 'jsonb', nullable: true }) gate!: Record<string, unknown> | null;
  @Column({ type: 'double precision' }) duration!: number;
  @Column({ name: 'created_by', type: 'text' }) createdBy!: string;
  @Column({ name: 'created_at', type: 'timestamptz' }) createdAt!: Date;
}

@Entity({ name: 'scenario_results' })
export class ScenarioResultEntity {
  @PrimaryColumn({ name: 'run_id', type: 'uuid' }) runId!: string;
  @PrimaryColumn({ name: 'scenario_id', type: 'uuid' }) scenarioId!: string;
  @Column({ name: 'tenant_id', type: 'text' }) tenantId!: string;
  @Column({ type: 'int' }) position!: number;
  @Column({ type: 'text' }) status!: string;
  @Column({ name: 'is_success', type: 'boolean' }) isSuccess!: boolean;
  @Column({ name: 'matches_expectation', type: 'boolean' }) matchesExpectation!: boolean;
  @Column({ name: 'output_facts', type: 'jsonb', nullable: true }) outputFacts!: Record<
    string,
    unknown
  > | null;
  @Column({ name: 'matched_rows', type: 'jsonb' }) matchedRows!: string[];
  @Column({ type: 'jsonb' }) errors!: string[];
  @Column({ type: 'double precision' }) duration!: number;
  @Column({ type: 'jsonb' }) analysis!: FailureFinding[];
}

export const SCENARIO_ENTITIES = [
  ScenarioPlanEntity,
  ScenarioEntity,
  ScenarioRunEntity,
  ScenarioResultEntity,
];
