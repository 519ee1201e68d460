import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { CopilotDraftProvenanceEntity } from './provenance.entity';

/**
 * `copilot_draft_provenance`, inside the caller's unit of work (row-level security: the unit of work's
 * tenant). The only place that reads or writes the table. Rows are never deleted.
 */
@Injectable()
export class ProvenanceRepository {
  async insert(m: EntityManager, row: CopilotDraftProvenanceEntity): Promise<void> {
    await m.getRepository(CopilotDraftProvenanceEntity).insert(row);
  }

  find(m: EntityManager, workflow: string, version: number): Promise<CopilotDraftProvenanceEntity | null> {
    return m.getRepository(CopilotDraftProvenanceEntity).findOne({ where: { workflow, version } });
  }

  /** Records the approval time (the latest approval wins if a version is approved again). */
  async markApproved(m: EntityManager, workflow: string, version: number, at: Date): Promise<void> {
    await m.query(
      `UPDATE copilot_draft_provenance SET approved_at = $3 WHERE workflow = $1 AND version = $2`,
      [workflow, version, at],
    );
  }

  /** Resolves `edited_before_approval` (once: the trigger refuses a second, different answer). */
  async resolveEdited(m: EntityManager, workflow: string, version: number, edited: boolean): Promise<void> {
    await m.query(
      `UPDATE copilot_draft_provenance SET edited_before_approval = $3
        WHERE workflow = $1 AND version = $2 AND edited_before_approval IS NULL`,
      [workflow, version, edited],
    );
  }
}
