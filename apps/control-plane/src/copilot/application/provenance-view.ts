import { CopilotDraftProvenanceEntity } from '../persistence/provenance.entity';

/** A provenance row as the API shows it (the spec's column names in camelCase). */
export interface ProvenanceView {
  id: string;
  tenantId: string;
  workflow: string;
  version: number;
  aiOriginalHash: string;
  aiOriginalSnapshot: string;
  generatedAt: string;
  generatedBy: string;
  editedBeforeApproval: boolean | null;
  approvedAt: string | null;
}

export function provenanceView(row: CopilotDraftProvenanceEntity): ProvenanceView {
  return {
    id: row.id,
    tenantId: row.tenantId,
    workflow: row.workflow,
    version: row.version,
    aiOriginalHash: row.aiOriginalHash,
    aiOriginalSnapshot: row.aiOriginalSnapshot,
    generatedAt: new Date(row.generatedAt).toISOString(),
    generatedBy: row.generatedBy,
    editedBeforeApproval: row.editedBeforeApproval,
    approvedAt: row.approvedAt ? new Date(row.approvedAt).toISOString() : null,
  };
}
