import type { CompiledRuleSet, Facts, RuleSetEvaluation, RuleSetShapeName } from '@arbiter/rule-engine';
import { AppError, RequestContext } from '@arbiter/platform';
import { Inject, Injectable } from '@nestjs/common';
import { newExecutionId } from './execution-id';
import { invalidRuleSet, RuleSetQueries } from '../rulesets';
import { assertWorkflowName, parseVersion } from '../shared';
import { RuleEngineSettings } from './execution.settings';
import { CompiledRuleSets } from './compiled-rule-sets';
import { ExecutionErrors, ExecutionResultErrorCodes } from './execution-errors';
import { assertFacts } from './execution.service';
import { RuleSetVersions } from './rule-set-versions';

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
  traces: { ruleName: string; matched: boolean; failReason: string | null }[];
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
  ) {}

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
    const { ruleSet, version, facts } = await this.prepare(workflowName, request);
    const started = performance.now();
    const evaluation = await this.evaluateWithCap(ruleSet, facts);
    return { evaluation, ms: Math.round((performance.now() - started) * 1000) / 1000, version };
  }

  private async prepare(
    workflowName: string,
    request: DryRunRequest,
  ): Promise<{ ruleSet: CompiledRuleSet; version: number | null; facts: Facts }> {
    if (request.ruleSet !== undefined) {
      if (request.version !== undefined)
        throw AppError.validation([
          { field: 'version', message: 'give either ruleSet or version, not both' },
        ]);
      const facts = assertFacts(
        request.context ?? request.inputs ?? {},
        request.context !== undefined ? 'context' : 'inputs',
      );
      const outcome = this.ruleSets.validate(workflowName, request.ruleSet);
      if (!outcome.valid || !outcome.shape) throw invalidRuleSet(outcome.errors, 'ruleSet');
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
    const outcome = this.ruleSets.validate(workflowName, target.document);
    if (!outcome.valid) throw invalidRuleSet(outcome.errors, 'ruleSet');
    return { ruleSet: await this.compiled.get(target), version: target.version, facts };
  }

  private async evaluateWithCap(ruleSet: CompiledRuleSet, facts: Facts): Promise<RuleSetEvaluation> {
    const limit = Math.min(this.settings.dryRunTimeoutMs, 10_000);
    const controller = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<RuleSetEvaluation>((resolve) => {
      timer = setTimeout(() => {
        controller.abort();
        resolve({
          outputs: {},
          traces: [],
          errors: [
            {
              code: ExecutionResultErrorCodes.DryRunTimeout,
              message: `the dry-run exceeded ${limit} ms and was stopped`,
            },
          ],
          rulesMatched: [],
          rulesExecuted: 0,
          sideEffectsApplied: false,
        });
      }, limit);
    });
    try {
      return await Promise.race([
        ruleSet.evaluate(facts, {
          sideEffects: false,
          trace: true,
          deadline: Date.now() + limit,
          signal: controller.signal,
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
