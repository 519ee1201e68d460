import { UnitOfWork } from '@arbiter/platform';
import { Inject, Injectable } from '@nestjs/common';
import { CurrentVersion, RuleSetRepository } from '../../rulesets';

/** The version of a workflow contracts and bindings are composed from (the active, else the latest). */
export type StoredWorkflow = CurrentVersion;

/** Read port onto the stored rule sets of the current tenant. */
export abstract class WorkflowDocuments {
  /** The active (else latest) version of one workflow. */
  abstract activeOrLatest(workflowName: string): Promise<StoredWorkflow | undefined>;
  /** The active (else latest) version of every workflow, by name. */
  abstract allActiveOrLatest(): Promise<StoredWorkflow[]>;
  /** One version of a workflow (a sub flow pinned to it). */
  abstract version(workflowName: string, version: number): Promise<StoredWorkflow | undefined>;
}

/**
 * Reads the rule sets through their owner's repository (one statement per call), as the application
 * role under the tenant's row-level security.
 */
@Injectable()
export class RuleSetWorkflowDocuments extends WorkflowDocuments {
  constructor(
    @Inject(UnitOfWork) private readonly uow: UnitOfWork,
    @Inject(RuleSetRepository) private readonly ruleSets: RuleSetRepository,
  ) {
    super();
  }

  async activeOrLatest(workflowName: string): Promise<StoredWorkflow | undefined> {
    return (await this.uow.run((m) => this.ruleSets.currentVersions(m, workflowName)))[0];
  }

  allActiveOrLatest(): Promise<StoredWorkflow[]> {
    return this.uow.run((m) => this.ruleSets.currentVersions(m, null));
  }

  async version(workflowName: string, version: number): Promise<StoredWorkflow | undefined> {
    const row = await this.uow.run((m) => this.ruleSets.findVersion(m, workflowName, version));
    if (!row) return undefined;
    return {
      workflowName,
      version,
      status: row.status,
      shape: row.shape,
      activeVersion: null,
      document: row.document,
    };
  }
}
