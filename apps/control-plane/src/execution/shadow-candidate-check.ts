import { RuleSetChangedEvent, Subjects } from '@arbiter/contracts';
import { EventBus, EventSubscription, UnitOfWork } from '@arbiter/platform';
import {
  BeforeApplicationShutdown,
  Inject,
  Injectable,
  Logger,
  OnApplicationBootstrap,
} from '@nestjs/common';
import { RuleSetRepository } from '../rulesets';
import { ExecutionRouterSettings } from './execution.settings';
import { RuleSetVersions } from './rule-set-versions';

/**
 * Shadow mode names one candidate version for every workflow. At startup, the workflows that have no
 * such version are listed in one warning, and every activation of a workflow that has none warns
 * again (on each node that hears the change): its executions are not shadowed (each is marked
 * `CANDIDATE_VERSION_NOT_FOUND`, and the first per workflow warns again).
 */
@Injectable()
export class ShadowCandidateCheck implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('Execution');
  private subscription?: EventSubscription;

  constructor(
    private readonly uow: UnitOfWork,
    @Inject(ExecutionRouterSettings) private readonly router: ExecutionRouterSettings,
    @Inject(RuleSetRepository) private readonly repo: RuleSetRepository,
    @Inject(RuleSetVersions) private readonly versions: RuleSetVersions,
    @Inject(EventBus) private readonly bus: EventBus,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const candidate = this.router.candidateVersion;
    if (this.router.mode !== 'Shadow' || !candidate) return;
    this.subscription = await this.bus
      .subscribe(Subjects.RuleSetChanged, (event) =>
        this.onActivation(event.data as RuleSetChangedEvent, candidate),
      )
      .catch((error: Error) => {
        this.logger.warn({
          msg: 'Shadow mode: activations are not checked for a missing candidate version (no bus)',
          err: String(error),
        });
        return undefined;
      });
    const missing = await this.uow
      .run((m) => this.repo.workflowsWithoutVersion(m, candidate), { acrossTenants: true })
      .catch(() => []);
    if (missing.length === 0) return;
    const shown = missing.slice(0, 20).map((w) => `${w.tenant_id}/${w.workflow_name}`);
    this.logger.warn(
      `Shadow mode: RuleEngineOptions:ExecutionRouter:CandidateVersion ${candidate} does not exist for ` +
        `${missing.length} workflow(s) (${shown.join(', ')}${missing.length > shown.length ? ', …' : ''}): ` +
        'their executions are not shadowed',
    );
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.subscription?.unsubscribe().catch(() => undefined);
  }

  /** An activation of a workflow without the candidate version: its executions will not be shadowed. */
  private async onActivation(event: RuleSetChangedEvent, candidate: number): Promise<void> {
    if (event?.change !== 'activated' || !event.tenantId || !event.workflowName) return;
    if (event.version === candidate) return;
    const found = await Promise.resolve(
      this.versions.byNumber(event.tenantId, event.workflowName, candidate),
    ).catch(() => undefined);
    if (found !== null) return;
    this.logger.warn({
      msg:
        `Shadow mode: version ${event.version} of '${event.workflowName}' (tenant '${event.tenantId}') was activated, ` +
        `but RuleEngineOptions:ExecutionRouter:CandidateVersion ${candidate} does not exist for it: ` +
        'its executions are not shadowed (marked CANDIDATE_VERSION_NOT_FOUND)',
      tenantId: event.tenantId,
      workflowName: event.workflowName,
      activatedVersion: event.version,
      candidateVersion: candidate,
    });
  }
}
