import { UnitOfWork } from '@arbiter/platform';
import { Inject, Injectable } from '@nestjs/common';

/** The version of a workflow contracts and bindings are composed from. */
export interface StoredWorkflow {
  workflowName: string;
  /** The active version, or the latest when none is active. */
  version: number;
  status: string;
  shape: string;
  activeVersion: number | null;
  document: Record<string, unknown>;
}

/** Read port onto the stored rule sets of the current tenant. */
export abstract class WorkflowDocuments {
  /** The active (else latest) version of one workflow. */
  abstract activeOrLatest(workflowName: string): Promise<StoredWorkflow | undefined>;
  /** The active (else latest) version of every workflow, by name. */
  abstract allActiveOrLatest(): Promise<StoredWorkflow[]>;
}

/**
 * Reads the rule set tables (owned by the rule sets module) in one statement per call, as the application
 * role under the tenant's row-level security.
 */
@Injectable()
export class SqlWorkflowDocuments extends WorkflowDocuments {
  constructor(@Inject(UnitOfWork) private readonly uow: UnitOfWork) {
    super();
  }

  async activeOrLatest(workflowName: string): Promise<StoredWorkflow | undefined> {
    return (await this.read(workflowName))[0];
  }

  allActiveOrLatest(): Promise<StoredWorkflow[]> {
    return this.read(null);
  }

  private async read(workflowName: string | null): Promise<StoredWorkflow[]> {
    const rows: Record<string, any>[] = await this.uow.run((m) =>
      m.query(
        `SELECT s.workflow_name, s.active_version, v.version, v.status, v.shape, v.document
           FROM rule_sets s
           JOIN rule_set_versions v
             ON v.tenant_id = s.tenant_id AND v.workflow_name = s.workflow_name
            AND v.version = COALESCE(s.active_version, s.latest_version)
          WHERE $1::text IS NULL OR s.workflow_name = $1::text
          ORDER BY s.workflow_name`,
        [workflowName],
      ),
    );
    return rows.map((r) => ({
      workflowName: r.workflow_name,
      version: Number(r.version),
      status: r.status,
      shape: r.shape,
      activeVersion: r.active_version === null ? null : Number(r.active_version),
      document: typeof r.document === 'string' ? JSON.parse(r.document) : r.document,
    }));
  }
}
