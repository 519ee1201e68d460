import { UnitOfWork } from '@arbiter/platform';
import { Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { RuleSetRepository } from '../rulesets';
import { ExecutionRouterSettings } from './execution.settings';

/**
 * Shadow mode names one candidate version for every workflow. At startup, the workflows that have no
 * such version are listed in one warning: their executions are not shadowed (each is marked
 * `CANDIDATE_VERSION_NOT_FOUND`, and the first per workflow warns again).
 */
@Injectable()
export class ShadowCandidateCheck implements OnApplicationBootstrap {
  private readonly logger = new Logger('Execution');

  constructor(
    private readonly uow: UnitOfWork,
    @Inject(ExecutionRouterSettings) private readonly router: ExecutionRouterSettings,
    @Inject(RuleSetRepository) private readonly repo: RuleSetRepository,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const candidate = this.router.candidateVersion;
    if (this.router.mode !== 'Shadow' || !candidate) return;
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
}
