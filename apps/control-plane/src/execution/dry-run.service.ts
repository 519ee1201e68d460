import type {
  CompiledRuleSet,
  DryRunTaskResult,
  Facts,
  RuleSetEvaluation,
  RuleSetShapeName,
} from '@arbiter/rule-engine';
import {
  AppError,
  RequestContext,
  WorkerOutOfMemory,
  WorkerPoolBusy,
  WorkerTaskTimeout,
} from '@arbiter/platform';
import { Inject, Injectable } from '@nestjs/common';
import { newExecutionId } from './execution-id';
import { invalidRuleSet, RuleSetQueries } from '../rulesets';
import { assertWorkflowName, parseVersion } from '../shared';
import { RuleEngineSettings } from './execution.settings';
import { CompiledRuleSets } from './compiled-rule-sets';
import { ExecutionErrors, ExecutionResultErrorCodes } from './execution-errors';
import { assertFacts } from './execution.service';
import { ExecutableVersion, RuleSetVersions } from './rule-set-versions';
import { HeavyExecutions } from './heavy-executions';
import { DryRunWorkers } from './dry-run-workers';

/** How long past its own deadline a worker may take to answer before its thread is stopped. */
const WORKER_GRACE_MS = 250;

/** Either request form: a stored version (`{ inputs, version? }`) or a document (`{ ruleSet, context, contextType }`). */
export interface DryRunRequest {
  inputs?: unknown;
  version?: unknown;
  ruleSet?: unknown;
  context?: unknown;
  contextType?: unknown;
}

/** A dry-run's answer on the /api/v1/control-plane routes: traces, outputs under `outputFacts`. */
export interface ControlPlaneDryRunResult {
  rulesMatched: boolean;
  evaluationTimeMs: number;
  /** `kind`, `skipped` and `outputs` (the facts the node produced) are ours, when there are any. */
  traces: {
    ruleName: string;
    matched: boolean;
    failReason: string | null;
    kind?: string;
    skipped?: boolean;
    outputs?: Facts;
  }[];
  outputFacts: Facts;
  errors: { ruleName?: string; code: string; message: string }[];
  version: number | null;
  matchedRules: string[];
}

/** A dry-run's answer on the /api/v1/rule-engine routes and from the `svc_ruleset_dry_run` tool: an execution-like result. */
export interface RuleEngineDryRunResult {
  executionId: string;
  status: 'success' | 'error';
  outputs: Facts;
  executionTime: string;
  rulesExecuted: number;
  sideEffectsApplied: false;
  errors: { ruleName?: string; code: string; message: string }[];
  rulesMatched: string[];
  version: number | null;
}

interface DryRunOutcome {
  evaluation: RuleSetEvaluation;
  ms: number;
  version: number | null;
}

/**
 * Dry-run: validate, compile and evaluate with side effects off (connector nodes are skipped, nothing
 * is written: no version, no audit entry, no quota use), capped at `RuleEngineOptions:DryRunTimeoutMs`
 * (≤ 10 s). Invalid requests and rule sets are 400s; failures while running are in `errors`.
 */
@Injectable()
export class DryRunService {
  constructor(
    @Inject(RuleSetQueries) private readonly ruleSets: RuleSetQueries,
    @Inject(RuleSetVersions) private readonly versions: RuleSetVersions,
    @Inject(CompiledRuleSets) private readonly compiled: CompiledRuleSets,
    @Inject(RuleEngineSettings) private readonly settings: RuleEngineSettings,
    @Inject(DryRunWorkers) private readonly workers: DryRunWorkers,
    @Inject(HeavyExecutions) private readonly heavy: HeavyExecutions,
  ) {}

  private get limit(): number {
    return Math.min(this.settings.dryRunTimeoutMs, 10_000);
  }

  async ruleEngineDryRun(workflowName: string, request: DryRunRequest): Promise<RuleEngineDryRunResult> {
    const outcome = await this.run(workflowName, request);
    return {
      executionId: newExecutionId(),
      status: outcome.evaluation.errors.length ? 'error' : 'success',
      outputs: outcome.evaluation.outputs,
      executionTime: `${outcome.ms.toFixed(3)}ms`,
      rulesExecuted: outcome.evaluation.rulesExecuted,
      sideEffectsApplied: false,
      errors: outcome.evaluation.errors,
      rulesMatched: outcome.evaluation.rulesMatched,
      version: outcome.version,
    };
  }

  async controlPlaneDryRun(workflowName: string, request: DryRunRequest): Promise<ControlPlaneDryRunResult> {
    const outcome = await this.run(workflowName, request);
    return {
      rulesMatched: outcome.evaluation.rulesMatched.length > 0,
      evaluationTimeMs: outcome.ms,
      traces: outcome.evaluation.traces.map((t) => ({
        ruleName: t.ruleName,
        matched: t.matched,
        failReason: t.failReason,
        ...(t.kind ? { kind: t.kind } : {}),
        ...(t.skipped ? { skipped: true } : {}),
        ...(t.outputs ? { outputs: t.outputs } : {}),
      })),
      outputFacts: outcome.evaluation.outputs,
      errors: outcome.evaluation.errors,
      version: outcome.version,
      matchedRules: outcome.evaluation.rulesMatched,
    };
  }

  private async run(workflowName: string, request: DryRunRequest): Promise<DryRunOutcome> {
    assertWorkflowName(workflowName);
    if (typeof request !== 'object' || request === null || Array.isArray(request))
      throw AppError.validation([{ field: 'body', message: 'must be a JSON object' }]);
    if (
      request.contextType !== undefined &&
      (typeof request.contextType !== 'string' || !request.contextType)
    )
      throw AppError.validation([{ field: 'contextType', message: 'must be a non-empty string' }]);
    const prepared = await this.prepare(workflowName, request);
    const started = performance.now();
    let evaluation =
      'evaluation' in prepared
        ? prepared.evaluation
        : await this.evaluateWithCap(prepared.ruleSet, prepared.facts, this.heavy.inProcessSteps);
    // a stored version whose FEEL outgrew the in-process share: on a dry-run worker with the whole budget
    if ('stored' in prepared && prepared.stored && this.heavy.outgrew(evaluation)) {
      const { stored } = prepared;
      evaluation =
        (stored.shape !== 'code-based'
          ? await this.inWorker(
              workflowName,
              stored.shape as RuleSetShapeName,
              stored.document,
              prepared.facts,
            )
          : null) ?? (await this.evaluateWithCap(prepared.ruleSet, prepared.facts));
    }
    return {
      evaluation,
      ms: Math.round((performance.now() - (prepared.started ?? started)) * 1000) / 1000,
      version: prepared.version,
    };
  }

  /**
   * An unsaved document, compiled and run on a worker thread (its cost is the author's: a FEEL loop, a
   * script, a huge rule set); null when it needs the service (a stored table, a sub flow), which then
   * runs it itself. Past the dry-run limit the worker's thread is stopped.
   */
  private async inWorker(
    workflowName: string,
    shape: RuleSetShapeName,
    document: Record<string, unknown>,
    facts: Facts,
  ): Promise<RuleSetEvaluation | null> {
    const limit = this.limit;
    let result: DryRunTaskResult;
    try {
      result = await this.workers.workers.run<DryRunTaskResult>(
        'dryRunDocument',
        {
          document,
          shape,
          workflowName,
          facts,
          deadline: Date.now() + limit,
          tenantId: RequestContext.tenantId(),
          correlationId: RequestContext.correlationId(),
        },
        limit + WORKER_GRACE_MS,
      );
    } catch (error) {
      if (error instanceof WorkerTaskTimeout)
        return this.stopped(
          ExecutionResultErrorCodes.DryRunTimeout,
          `the dry-run exceeded ${limit} ms and was stopped`,
        );
      if (error instanceof WorkerOutOfMemory)
        return this.stopped(
          ExecutionResultErrorCodes.DryRunMemory,
          `the dry-run exhausted its ${error.memoryMb} MiB heap (RuleEngineOptions:DryRunWorkers:MemoryMb) and was stopped`,
        );
      if (error instanceof WorkerPoolBusy)
        return this.stopped(
          ExecutionResultErrorCodes.DryRunBusy,
          'every dry-run worker is busy; try again shortly',
        );
      throw error;
    }
    if (result.ok) return result.evaluation;
    if (result.needsHost) return null;
    throw ExecutionErrors.documentNotExecutable(new Error(result.message));
  }

  /** The result of a dry-run stopped by the service (time, memory, no worker free). */
  private stopped(code: string, message: string): RuleSetEvaluation {
    return {
      outputs: {},
      traces: [],
      errors: [{ code, message }],
      rulesMatched: [],
      rulesExecuted: 0,
      sideEffectsApplied: false,
    };
  }

  private async prepare(
    workflowName: string,
    request: DryRunRequest,
  ): Promise<
    | {
        ruleSet: CompiledRuleSet;
        version: number | null;
        facts: Facts;
        started?: undefined;
        stored?: ExecutableVersion;
      }
    | { evaluation: RuleSetEvaluation; version: null; started: number }
  > {
    if (request.ruleSet !== undefined) {
      if (request.version !== undefined)
        throw AppError.validation([
          { field: 'version', message: 'give either ruleSet or version, not both' },
        ]);
      const facts = assertFacts(
        request.context ?? request.inputs ?? {},
        request.context !== undefined ? 'context' : 'inputs',
      );
      const outcome = await this.ruleSets.validate(workflowName, request.ruleSet);
      if (!outcome.valid || !outcome.shape) throw invalidRuleSet(outcome.errors, 'ruleSet');
      const shape = outcome.shape as RuleSetShapeName;
      const document = request.ruleSet as Record<string, unknown>;
      // code-based rules are the service's own code: they run here
      if (shape !== 'code-based') {
        const started = performance.now();
        const evaluation = await this.inWorker(workflowName, shape, document, facts);
        if (evaluation) return { evaluation, version: null, started };
      }
      const ruleSet = await this.compiled
        .compileDocument(
          RequestContext.tenantId(),
          workflowName,
          outcome.shape as RuleSetShapeName,
          request.ruleSet as Record<string, unknown>,
        )
        .catch((error: Error) => {
          throw ExecutionErrors.documentNotExecutable(error);
        });
      return { ruleSet, version: null, facts };
    }
    if (request.inputs === undefined && request.context === undefined)
      throw AppError.validation([{ field: 'inputs', message: 'required (the facts to evaluate)' }]);
    const facts = assertFacts(
      request.inputs ?? request.context,
      request.inputs !== undefined ? 'inputs' : 'context',
    );
    const tenantId = RequestContext.tenantId();
    const active = await this.versions.active(tenantId, workflowName);
    if (!active.exists) throw ExecutionErrors.workflowNotFound(workflowName);
    let target = active.version;
    if (request.version !== undefined && request.version !== null) {
      const number = parseVersion(request.version);
      target = await this.versions.byNumber(active.owner, workflowName, number);
      if (!target) throw ExecutionErrors.versionNotFound(workflowName, number);
    }
    if (!target) throw ExecutionErrors.noActiveVersion(workflowName);
    const outcome = await this.ruleSets.validate(workflowName, target.document);
    if (!outcome.valid) throw invalidRuleSet(outcome.errors, 'ruleSet');
    return { ruleSet: await this.compiled.get(target), version: target.version, facts, stored: target };
  }

  private async evaluateWithCap(
    ruleSet: CompiledRuleSet,
    facts: Facts,
    maxSteps?: number,
  ): Promise<RuleSetEvaluation> {
    const limit = this.limit;
    const controller = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<RuleSetEvaluation>((resolve) => {
      timer = setTimeout(() => {
        controller.abort();
        resolve(
          this.stopped(
            ExecutionResultErrorCodes.DryRunTimeout,
            `the dry-run exceeded ${limit} ms and was stopped`,
          ),
        );
      }, limit);
    });
    try {
      return await Promise.race([
        ruleSet.evaluate(facts, {
          sideEffects: false,
          trace: true,
          deadline: Date.now() + limit,
          signal: controller.signal,
          maxSteps,
          tenantId: RequestContext.tenantId(),
          correlationId: RequestContext.correlationId(),
        }),
        timeout,
      ]);
    } finally {
      clearTimeout(timer);
    }
  }
}
