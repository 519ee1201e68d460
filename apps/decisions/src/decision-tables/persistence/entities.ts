import { Column, Entity, Index, PrimaryColumn, PrimaryGeneratedColumn } from 'typeorm';
import type { StoredDefinition } from '../application/table-model';

/** One decision table (its identity, name and latest version). Row-level security on tenant_id. */
@Entity({ name: 'decision_tables' })
@Index(['tenantId', 'name'], { unique: true })
export class DecisionTableEntity {
  @PrimaryColumn('uuid')
  id!: string;

  @Column({ name: 'tenant_id', type: 'text' })
  tenantId!: string;

  @Column({ type: 'text' })
  name!: string;

  @Column({ type: 'text', nullable: true })
  description!: string | null;

  @Column({ name: 'latest_version', type: 'int' })
  latestVersion!: number;

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @Column({ name: 'modified_at', type: 'timestamptz' })
  modifiedAt!: Date;
}

/** Every saved version of a table: the full definition as JSON. Deleted with the table. */
@Entity({ name: 'decision_table_versions' })
export class DecisionTableVersionEntity {
  @PrimaryColumn({ name: 'table_id', type: 'uuid' })
  tableId!: string;

  @PrimaryColumn({ type: 'int' })
  version!: number;

  @Column({ name: 'tenant_id', type: 'text' })
  tenantId!: string;

  @Column({ type: 'jsonb' })
  definition!: StoredDefinition;

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @Column({ name: 'created_by', type: 'text' })
  createdBy!: string;

  @Column({ type: 'text', nullable: true })
  comment!: string | null;
}

/** Audit trail; outlives the table (a deleted table's entries stay in the global audit). */
@Entity({ name: 'decision_table_audit' })
export class DecisionTableAuditEntity {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id!: string;

  @Column({ name: 'tenant_id', type: 'text' })
  tenantId!: string;

  @Column({ name: 'table_id', type: 'uuid' })
  tableId!: string;

  @Column({ name: 'table_name', type: 'text' })
  tableName!: string;

  @Column({ type: 'text' })
  action!: 'Create' | 'Update' | 'Delete';

  @Column({ type: 'text' })
  actor!: string;

  @Column({ type: 'int', nullable: true })
  version!: number | null;

  @Column({ type: 'text', nullable: true })
  comment!: string | null;

  @Column({ name: 'changes_summary', type: 'text' })
  changesSummary!: string;

  @Column({ type: 'timestamptz' })
  timestamp!: Date;
}

export const DECISION_TABLE_ENTITIES = [
  DecisionTableEntity,
  DecisionTableVersionEntity,
  DecisionTableAuditEntity,
];
