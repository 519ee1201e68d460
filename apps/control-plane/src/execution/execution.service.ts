import {
  diffOutputs,
  type CompiledRuleSet,
  type Facts,
  type RuleSetEvaluation,
  type RuleTrace,
} from '@arbiter/rule-engine';
import { AppError, RequestContext } from '@arbiter/platform';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { ExecutionArm, ExecutionAuditSink, ExecutionRecord, ShadowDiffRecord } from '../execution-audit';
import { ExecutionRouterSettings, RuleEngineSettings } from './execution.settings';
import { CompiledRuleSets } from './compiled-rule-sets';
import { ExecutionErrors, ExecutionResultErrorCodes } from './execution-errors';
import { newExecutionId } from './execution-id';
import { isoNow } from './iso-clock';
import { ExecutionMetrics } from './execution-metrics';
import { EventWindowClient, type WindowReference } from './adapters/event-window-client';
import { CanaryRouting, ExecutionQuota, QuotaLeaseHandle, TraditionalExecution } from './ports';
import { ActiveVersion, ExecutableVersion, RuleSetVersions } from './rule-set-versions';
import { HeavyExecutions, type HeavyRun } from './heavy-executions';

export interface ExecuteRequest {
  workflowName: string;
  facts: Facts;
  /** Correlation id of the call (default: the request's). */
  correlationId?: string;
  /** Stable key for percentage canaries (default: the tenant). */
  bucketKey?: string;
  /** Include per-rule / per-node traces in the answer. */
  trace?: boolean;
  /** Event-window facts to add under `window` (read from the decisions service for the key fact). */
  window?: WindowReference;
}

export interface ExecutionResult {
  executionId: string;
  workflowName: string;
  tenantId: string;
  version: number | null;
  status: 'success' | 'error';
  mode: ExecutionRecord['mode'];
  arm: ExecutionArm;
  rolloutId: string | null;
  correlationId: string;
  outputs: Facts;
  rulesMatched: string[];
  errors: RuleSetEvaluation['errors'];
  executionTimeMs: number;
  traces?: RuleTrace[];
}

interface Target {
  version: ExecutableVersion;
  arm: ExecutionArm;
  rolloutId: string | null;
}

/** `candidateErrors` of a shadowed execution whose candidate version does not exist. */
export const CANDIDATE_VERSION_NOT_FOUND = 'CANDIDATE_VERSION_NOT_FOUND';

/**
 * Client traffic: the execution router (`RuleEngineOptions:ExecutionRouter:Mode`).
 *
 * | mode        | runs                                                                                     |
 * |-------------|------------------------------------------------------------------------------------------|
 * | Traditional | the traditional path only                                                                |
 * | Rules       | the active version, or the canary version when the caller is a canary target            |
 * | Hybrid      | `HybridRulesPercentage` % of calls take Rules, the rest the traditional path (random)    |
 * | Shadow      | active (`ActiveVersion` when set) for the answer; candidate (`CandidateVersion`, else the |
 * |             | workflow's canary) afterwards with side effects off; the output diff goes to the audit  |
 *
 * Quota first (429 with Retry-After), then the rule set (404 when the workflow or an active version is
 * missing), then evaluation with the configured time limit. Every execution is handed to the audit
 * (batched off the hot path) and counted in the metrics; runtime failures are in `errors` (status
 * `error`), not an HTTP error.
 */
@Injectable()
export class ExecutionService {
  private readonly logger = new Logger('Execution');

  constructor(
    @Inject(ExecutionRouterSettings) private readonly router: ExecutionRouterSettings,
    @Inject(RuleEngineSettings) private readonly engine: RuleEngineSettings,
    @Inject(RuleSetVersions) private readonly versions: RuleSetVersions,
    @Inject(CompiledRuleSets) private readonly compiled: CompiledRuleSets,
    @Inject(CanaryRouting) private readonly canary: CanaryRouting,
    @Inject(ExecutionQuota) private readonly quota: ExecutionQuota,
    @Inject(TraditionalExecution) private readonly traditional: TraditionalExecution,
    @Inject(ExecutionAuditSink) private readonly audit: ExecutionAuditSink,
    @Inject(ExecutionMetrics) private readonly metrics: ExecutionMetrics,
    @Inject(EventWindowClient) private readonly windows: EventWindowClient,
    @Inject(HeavyExecutions) private readonly heavy: HeavyExecutions,
  ) {}

  /**
   * Runs one execution. The answer comes without a promise when every step has its data at hand (quota
   * room, cached rule set and compiled form, audit buffer room, no node that waits): a promise per step
   * shows on the hot path. Refusals (quota, unknown workflow) may be thrown rather than rejected.
   */
  execute(request: ExecuteRequest): ExecutionResult | Promise<ExecutionResult> {
    const started = performance.now();
    const tenantId = RequestContext.tenantId();
    const correlationId = request.correlationId || RequestContext.correlationId() || randomUUID();
    return settle(this.quota.acquire(tenantId), (lease) =>
      this.runAdmitted(request, tenantId, correlationId, started, lease),
    );
  }

  /** One admitted execution; its quota lease is released when it ends, however it ends. */
  private runAdmitted(
    request: ExecuteRequest,
    tenantId: string,
    correlationId: string,
    started: number,
    lease: QuotaLeaseHandle,
  ): ExecutionResult | Promise<ExecutionResult> {
    let running: ExecutionResult | Promise<ExecutionResult>;
    try {
      // Only a request naming a window pays for the read (the hot path without one is unchanged).
      const window = request.window;
      running = window
        ? this.windows
            .withWindowFacts(tenantId, window, request.facts)
            .then((facts) => this.run({ ...request, facts }, tenantId, correlationId, started))
        : this.run(request, tenantId, correlationId, started);
    } catch (error) {
      lease.release();
      throw error;
    }
    if (running instanceof Promise) return running.finally(() => lease.release());
    lease.release();
    return running;
  }

  private run(
    request: ExecuteRequest,
    tenantId: string,
    correlationId: string,
    started: number,
  ): ExecutionResult | Promise<ExecutionResult> {
    const mode = this.router.mode;
    const rules =
      mode === 'Rules' ||
      mode === 'Shadow' ||
      (mode === 'Hybrid' && Math.random() * 100 < this.router.hybridRulesPercentage);
    if (!rules) return this.runTraditional(request, tenantId, correlationId, mode, started);
    return settle(this.target(request, tenantId, mode), (target) =>
      settle(this.compiled.get(target.version), (ruleSet) =>
        settle(
          this.evaluate(ruleSet, target.version, {
            facts: request.facts,
            trace: request.trace === true,
            deadline: Date.now() + this.engine.executionTimeoutMs,
            tenantId,
            correlationId,
          }),
          (evaluation) => {
            const result = this.result(request, tenantId, correlationId, mode, target, evaluation, started);
            if (mode === 'Shadow') {
              this.shadow(request, target, evaluation, result);
              return result;
            }
            return settle(this.record(result, null), () => result);
          },
        ),
      ),
    );
  }

  /**
   * Evaluates a stored version on the event loop within `RuleEngineOptions:InProcessFeelSteps`; one that
   * outgrows them runs again on an execution worker with the whole budget (or here, when it has side
   * effects or needs the service), so a saved loop holds no other request.
   */
  private evaluate(
    ruleSet: CompiledRuleSet,
    version: ExecutableVersion,
    run: HeavyRun,
    sideEffects = true,
  ): RuleSetEvaluation | Promise<RuleSetEvaluation> {
    const options = {
      trace: run.trace,
      deadline: run.deadline,
      tenantId: run.tenantId,
      correlationId: run.correlationId,
      ...(sideEffects ? {} : { sideEffects: false }),
    };
    return settle(
      ruleSet.evaluateNow(run.facts, { ...options, maxSteps: this.heavy.inProcessSteps }),
      (evaluation) => {
        if (!this.heavy.outgrew(evaluation) || evaluation.sideEffectsApplied) return evaluation;
        return this.heavy
          .run(version, run)
          .then((offloaded) => offloaded ?? ruleSet.evaluate(run.facts, options));
      },
    );
  }

  /** The version this call runs: pinned by Shadow's ActiveVersion, a canary's, or the active one. */
  private target(request: ExecuteRequest, tenantId: string, mode: string): Target | Promise<Target> {
    const active = this.versions.active(tenantId, request.workflowName);
    return active instanceof Promise
      ? active.then((a) => this.pick(request, tenantId, mode, a))
      : this.pick(request, tenantId, mode, active);
  }

  private pick(
    request: ExecuteRequest,
    tenantId: string,
    mode: string,
    active: ActiveVersion,
  ): Target | Promise<Target> {
    const { workflowName } = request;
    if (!active.exists) throw ExecutionErrors.workflowNotFound(workflowName);
    if (mode === 'Shadow' && this.router.activeVersion) {
      const pinnedNumber = this.router.activeVersion;
      return settle(this.versions.byNumber(active.owner, workflowName, pinnedNumber), (pinned) => {
        if (!pinned) throw ExecutionErrors.versionNotFound(workflowName, pinnedNumber);
        return { version: pinned, arm: 'active', rolloutId: null };
      });
    }
    // Shadow answers with the active version (its candidate runs afterwards, see shadow()).
    if (mode === 'Shadow') return activeTarget(workflowName, active, null);
    // Rules, and Hybrid's rules share: canary targets run the canary version; everyone else runs the active
    // one, tagged with the running rollout (the control arm of its per-arm metrics).
    const rollout = this.canary.activeRollout(active.owner, workflowName);
    if (!rollout) return activeTarget(workflowName, active, null);
    const routed = this.canary.route(active.owner, workflowName, tenantId, request.bucketKey || tenantId);
    if (routed && routed.version !== active.version?.version)
      return settle(this.versions.byNumber(active.owner, workflowName, routed.version), (canaryVersion) =>
        canaryVersion
          ? { version: canaryVersion, arm: 'canary', rolloutId: routed.rolloutId }
          : activeTarget(workflowName, active, rollout.rolloutId),
      );
    return activeTarget(workflowName, active, rollout.rolloutId);
  }

  private async runTraditional(
    request: ExecuteRequest,
    tenantId: string,
    correlationId: string,
    mode: ExecutionRecord['mode'],
    started: number,
  ): Promise<ExecutionResult> {
    let outputs: Facts = {};
    const errors: RuleSetEvaluation['errors'] = [];
    try {
      outputs = await this.traditional.execute(request.workflowName, request.facts);
    } catch (error) {
      errors.push({ code: ExecutionResultErrorCodes.TraditionalFailed, message: (error as Error).message });
    }
    const result: ExecutionResult = {
      executionId: newExecutionId(),
      workflowName: request.workflowName,
      tenantId,
      version: null,
      status: errors.length ? 'error' : 'success',
      mode,
      arm: 'traditional',
      rolloutId: null,
      correlationId,
      outputs,
      rulesMatched: [],
      errors,
      executionTimeMs: round(performance.now() - started),
    };
    await this.record(result, null);
    return result;
  }

  private result(
    request: ExecuteRequest,
    tenantId: string,
    correlationId: string,
    mode: ExecutionRecord['mode'],
    target: Target,
    evaluation: RuleSetEvaluation,
    started: number,
  ): ExecutionResult {
    const result: ExecutionResult = {
      executionId: newExecutionId(),
      workflowName: request.workflowName,
      tenantId,
      version: target.version.version,
      status: evaluation.errors.length ? 'error' : 'success',
      mode,
      arm: target.arm,
      rolloutId: target.rolloutId,
      correlationId,
      outputs: evaluation.outputs,
      rulesMatched: evaluation.rulesMatched,
      errors: evaluation.errors,
      executionTimeMs: round(performance.now() - started),
    };
    if (request.trace) result.traces = evaluation.traces;
    return result;
  }

  /**
   * Shadow: the candidate runs after the answer is computed (side effects off), its outputs are
   * compared field by field, and the execution is audited with the diff. The client never waits for it.
   */
  private shadow(
    request: ExecuteRequest,
    target: Target,
    active: RuleSetEvaluation,
    result: ExecutionResult,
  ) {
    const run = async (): Promise<ShadowDiffRecord | null> => {
      const candidateNumber =
        this.router.candidateVersion ??
        this.canary.activeRollout(target.version.tenantId, request.workflowName)?.version;
      if (!candidateNumber) return null;
      const candidate = await this.versions.byNumber(
        target.version.tenantId,
        request.workflowName,
        candidateNumber,
      );
      if (!candidate)
        return this.missingCandidate(target.version.tenantId, request.workflowName, candidateNumber, active);
      const ruleSet: CompiledRuleSet = await this.compiled.get(candidate);
      const startedCandidate = performance.now();
      const evaluation = await this.evaluate(
        ruleSet,
        candidate,
        {
          facts: request.facts,
          trace: false,
          deadline: Date.now() + this.engine.executionTimeoutMs,
          tenantId: result.tenantId,
          correlationId: result.correlationId,
        },
        false,
      );
      const diff = diffOutputs(active.outputs, evaluation.outputs, {
        criticalFields: this.router.criticalFields,
      });
      const record: ShadowDiffRecord = {
        candidateVersion: candidateNumber,
        severity: diff.severity,
        differences: diff.differences,
      };
      if (this.router.comparisonStrategies.includes('ExecutionTime'))
        Object.assign(record, {
          activeExecutionTimeMs: result.executionTimeMs,
          candidateExecutionTimeMs: round(performance.now() - startedCandidate),
        });
      if (evaluation.errors.length)
        Object.assign(record, { candidateErrors: evaluation.errors.map((e) => e.code) });
      this.metrics.shadowed(diff.differences.length);
      return record;
    };
    void run()
      .catch((error: Error) => {
        this.logger.warn({
          msg: 'shadow candidate failed',
          workflowName: request.workflowName,
          error: error.message,
        });
        return null;
      })
      .then((diff) => this.record(result, diff));
  }

  /** (tenant, workflow, version) of candidates found missing, each warned about once. */
  private readonly warnedMissing = new Set<string>();

  /**
   * Shadow with a candidate version the workflow does not have: nothing can be compared, and saying
   * nothing would look like agreement. Warned once per tenant, workflow and version, and every such
   * execution is marked (`candidateErrors: ['CANDIDATE_VERSION_NOT_FOUND']`, the active output fields as
   * missing on the candidate's side).
   */
  private missingCandidate(
    tenantId: string,
    workflowName: string,
    candidateVersion: number,
    active: RuleSetEvaluation,
  ): ShadowDiffRecord {
    const key = `${tenantId}\u0000${workflowName}\u0000${candidateVersion}`;
    if (!this.warnedMissing.has(key)) {
      this.warnedMissing.add(key);
      this.logger.warn({
        msg: `Shadow mode: candidate version ${candidateVersion} of '${workflowName}' does not exist for tenant '${tenantId}': its executions are not shadowed (marked CANDIDATE_VERSION_NOT_FOUND)`,
        workflowName,
        tenantId,
        candidateVersion,
      });
    }
    const diff = diffOutputs(active.outputs, {}, { criticalFields: this.router.criticalFields });
    return {
      candidateVersion,
      severity: diff.severity,
      differences: diff.differences,
      candidateErrors: [CANDIDATE_VERSION_NOT_FOUND],
    } as ShadowDiffRecord;
  }

  private record(result: ExecutionResult, shadowDiff: ShadowDiffRecord | null): void | Promise<void> {
    this.metrics.executed(
      result.workflowName,
      result.version,
      result.arm,
      result.mode,
      result.executionTimeMs,
      result.status === 'error',
    );
    return this.audit.record({
      executionId: result.executionId,
      tenantId: result.tenantId,
      workflowName: result.workflowName,
      version: result.version,
      correlationId: result.correlationId,
      executedAt: isoNow(),
      executionTimeMs: result.executionTimeMs,
      rulesMatched: result.rulesMatched,
      status: result.status,
      errorCodes: result.errors.length ? result.errors.map((e) => e.code) : [],
      arm: result.arm,
      rolloutId: result.rolloutId,
      mode: result.mode,
      shadowDiff,
    });
  }
}

function activeTarget(workflowName: string, active: ActiveVersion, rolloutId: string | null): Target {
  if (!active.version) throw ExecutionErrors.noActiveVersion(workflowName);
  return { version: active.version, arm: 'active', rolloutId };
}

/** Applies `next` to a value that may still be pending, without a promise when it is not. */
function settle<T, R>(value: T | Promise<T>, next: (value: T) => R | Promise<R>): R | Promise<R> {
  return value instanceof Promise ? value.then(next) : next(value);
}

function round(ms: number) {
  return Math.round(ms * 1000) / 1000;
}

export function assertFacts(value: unknown, field = 'facts'): Facts {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw AppError.validation(
      [{ field, message: 'must be a JSON object' }],
      `'${field}' must be a JSON object`,
    );
  return value as Facts;
}
