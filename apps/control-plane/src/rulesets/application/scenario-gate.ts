import {
  RequestSubjects,
  type RuleSetVersionReply,
  type RuleSetVersionRequest,
  type ScenarioGateStatusReply,
  type ScenarioGateStatusRequest,
} from '@arbiter/contracts';
import { AppError, BusRequestError, EventBus, type EventSubscription } from '@arbiter/platform';
import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { ScenarioGateSettings } from '../rulesets.settings';
import { RuleSetErrors } from './ruleset-errors';
import { RuleSetQueries } from './ruleset-queries';

/**
 * `RuleControlPlane:RequireScenarioGate`: before a version is approved or activated, the decisions
 * service (owner of scenario runs) is asked over the bus whether that exact version's latest scenario
 * gate passed. Failed or never run: 409 `SCENARIO_GATE_NOT_PASSED`; no answer: 503
 * `SCENARIO_GATE_UNAVAILABLE` (refused rather than waved through). Off by default.
 */
@Injectable()
export class ScenarioGate {
  constructor(
    @Inject(ScenarioGateSettings) private readonly settings: ScenarioGateSettings,
    @Inject(EventBus) private readonly bus: EventBus,
  ) {}

  get required(): boolean {
    return this.settings.requireScenarioGate;
  }

  async requirePassed(workflowName: string, version: number, action: 'approve' | 'activate'): Promise<void> {
    if (!this.settings.requireScenarioGate) return;
    let verdict: ScenarioGateStatusReply;
    try {
      verdict = await this.bus.request<ScenarioGateStatusReply>(
        RequestSubjects.ScenarioGateStatus,
        { workflowName, version } satisfies ScenarioGateStatusRequest,
        { timeoutMs: this.settings.timeoutMs },
      );
    } catch (error) {
      const why = error instanceof BusRequestError ? error.message : String(error);
      throw new AppError(
        503,
        RuleSetErrors.ScenarioGateUnavailable,
        `RuleControlPlane:RequireScenarioGate is on and the scenario gate of '${workflowName}' version ${version} could not be read (${why}); try again`,
      );
    }
    if (verdict.status === 'Passed') return;
    const detail =
      verdict.status === 'NotRun'
        ? 'has not run'
        : `failed (run ${verdict.runId}: coverage ${verdict.coverage} % against ${verdict.minCoverage} %, ${verdict.failed} failed scenarios)`;
    throw AppError.conflict(
      RuleSetErrors.ScenarioGateNotPassed,
      `Version ${version} of '${workflowName}' cannot ${action}: its scenario gate ${detail}. Run ` +
        '`arbiter scenarios gate --workflow` (POST /api/v1/scenarios/gate on the decisions service) against it first',
    );
  }
}

/**
 * Answers `rpc.control-plane.ruleset-version` for the other services (the decisions service's
 * scenarios read rule sets this way, never from this service's database): the version's document,
 * read in the requester's tenant under row-level security.
 */
@Injectable()
export class RuleSetVersionResponder implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('RuleSetVersionResponder');
  private subscription: EventSubscription | null = null;

  constructor(
    @Inject(EventBus) private readonly bus: EventBus,
    @Inject(RuleSetQueries) private readonly queries: RuleSetQueries,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    try {
      this.subscription = await this.bus.respond<RuleSetVersionRequest>(
        RequestSubjects.RuleSetVersion,
        async (event): Promise<RuleSetVersionReply> => {
          const { workflowName, version } = event.data ?? ({} as RuleSetVersionRequest);
          if (typeof workflowName !== 'string')
            throw AppError.badRequest('INVALID_WORKFLOW_NAME', 'workflowName is required');
          // no version: the active one, else the latest (a workflow not activated yet is gated before it is)
          let target = version ?? null;
          if (target === null) {
            const summary = await this.queries.versions(workflowName, 1, 0);
            target = summary.activeVersion ?? summary.totalVersions;
          }
          const v = await this.queries.version(workflowName, target);
          return {
            workflowName: v.workflowName,
            version: v.version,
            status: v.status,
            shape: String(v.shape),
            ruleSet: v.ruleSet,
          };
        },
      );
    } catch (error) {
      this.logger.warn({ msg: 'rule set versions are not served over the bus', err: String(error) });
    }
  }

  async onApplicationShutdown(): Promise<void> {
    await this.subscription?.unsubscribe();
  }
}
