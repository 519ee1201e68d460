import { Column, Entity, PrimaryColumn } from 'typeorm';

/** One copilot draft provenance row (spec 1's table): who had a model draft which version, and its original. */
@Entity({ name: 'copilot_draft_provenance' })
export class CopilotDraftProvenanceEntity {
  @PrimaryColumn({ type: 'uuid' })
  id!: string;

  @Column({ name: 'tenant_id', type: 'varchar', length: 128 })
  tenantId!: string;

  @Column({ type: 'varchar', length: 256 })
  workflow!: string;

  @Column({ type: 'int' })
  version!: number;

  @Column({ name: 'ai_original_hash', type: 'varchar', length: 64 })
  aiOriginalHash!: string;

  @Column({ name: 'ai_original_snapshot', type: 'text' })
  aiOriginalSnapshot!: string;

  @Column({ name: 'generated_at', type: 'timestamptz' })
  generatedAt!: Date;

  @Column({ name: 'generated_by', type: 'varchar', length: 256 })
  generatedBy!: string;

  @Column({ name: 'edited_before_approval', type: 'boolean', nullable: true })
  editedBeforeApproval!: boolean | null;

  @Column({ name: 'approved_at', type: 'timestamptz', nullable: true })
  approvedAt!: Date | null;
}

export const COPILOT_ENTITIES = [CopilotDraftProvenanceEntity];
