import { FieldProblem, RequestContext, UnitOfWork } from '@arbiter/platform';
import { formatProblem } from '@arbiter/rule-engine';
import { Inject, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { DryRunService } from '../../execution';
import { RuleSetQueries, SaveRuleSet } from '../../rulesets';
import { assertWorkflowName } from '../../shared';
import { ChatCompletionsClient } from '../adapters/chat-completions';
import { canonicalDraft, draftHash } from '../domain/draft-hash';
import { DraftExample, draftMessages, meetsExpectation } from '../domain/prompt';
import { DraftShape, shapeSchema } from '../domain/shape-schemas';
import { CopilotDraftProvenanceEntity } from '../persistence/provenance.entity';
import { ProvenanceRepository } from '../persistence/provenance.repository';
import { copilotNotConfigured, examplesFailed, invalidDraft } from './copilot-errors';
import { provenanceView, ProvenanceView } from './provenance-view';

export interface DraftRequest {
  description: string;
  shape?: DraftShape;
  examples?: DraftExample[];
  detail?: string;
}

export interface ExampleResult {
  index: number;
  passed: boolean;
  expected: Record<string, unknown>;
  actual: Record<string, unknown>;
  mismatches: string[];
}

export interface DraftResult {
  workflowName: string;
  version: number;
  status: 'Draft';
  shape: string;
  createdAt: string;
  createdBy: string;
  revision: number;
  model: string;
  ruleSet: Record<string, unknown>;
  examples: ExampleResult[];
  provenance: ProvenanceView;
}

/**
 * Drafts a rule set with the configured model: asks the chat-completions endpoint for a document of the
 * shape (its JSON schema in the request), validates it with the rule engine's document validation,
 * dry-runs it against the author's examples (every expected output must come out), then saves it as
 * the workflow's next Draft version (audited SAVE) with its provenance row in the same transaction.
 * Nothing is saved when any step fails. The author (`GeneratedBy`) is the request's actor: the token's
 * user with authorization on.
 */
@Injectable()
export class DraftRuleSet {
  constructor(
    private readonly uow: UnitOfWork,
    @Inject(ChatCompletionsClient) private readonly model: ChatCompletionsClient,
    @Inject(RuleSetQueries) private readonly ruleSets: RuleSetQueries,
    @Inject(DryRunService) private readonly dryRuns: DryRunService,
    @Inject(SaveRuleSet) private readonly saving: SaveRuleSet,
    @Inject(ProvenanceRepository) private readonly provenance: ProvenanceRepository,
  ) {}

  async execute(workflowName: string, request: DraftRequest): Promise<DraftResult> {
    assertWorkflowName(workflowName);
    if (!this.model.configured) throw copilotNotConfigured();
    const shape = request.shape ?? 'rules';
    const examples = request.examples ?? [];
    const document = await this.model.completeJson(
      draftMessages({ workflowName, description: request.description, shape, examples }),
      { name: 'rule_set', schema: shapeSchema(shape) },
    );

    const outcome = await this.ruleSets.validate(workflowName, document);
    if (!outcome.valid) {
      const details: FieldProblem[] = outcome.errors.map((p) => ({ field: p.path, message: p.message }));
      throw invalidDraft(outcome.errors[0] ? formatProblem(outcome.errors[0]) : 'invalid', details);
    }
    if (outcome.shape !== shape)
      throw invalidDraft(`a '${outcome.shape}' rule set was asked for as '${shape}'`, [
        { field: 'type', message: `expected the ${shape} shape, got ${outcome.shape}` },
      ]);

    const results = await this.runExamples(workflowName, document, examples);
    const failed = results.filter((r) => !r.passed);
    if (failed.length)
      throw examplesFailed(
        failed.length,
        results.length,
        failed.map((r) => ({ field: `examples[${r.index}]`, message: r.mismatches.join('; ') })),
      );

    const generatedBy = RequestContext.actor();
    const snapshot = canonicalDraft(document);
    let row: CopilotDraftProvenanceEntity | undefined;
    const saved = await this.saving.execute(workflowName, {
      document,
      detail:
        request.detail?.trim() || `copilot draft (${this.model.model}): ${request.description.slice(0, 200)}`,
      pathPrefix: 'ruleSet',
      within: async (m, version) => {
        row = {
          id: randomUUID(),
          tenantId: version.tenantId,
          workflow: workflowName,
          version: version.version,
          aiOriginalHash: draftHash(document),
          aiOriginalSnapshot: snapshot,
          generatedAt: version.createdAt,
          generatedBy,
          editedBeforeApproval: null,
          approvedAt: null,
        };
        await this.provenance.insert(m, row);
      },
    });
    return {
      workflowName,
      version: saved.version,
      status: 'Draft',
      shape: saved.shape,
      createdAt: saved.createdAt,
      createdBy: saved.createdBy,
      revision: saved.revision,
      model: this.model.model,
      ruleSet: document,
      examples: results,
      provenance: provenanceView(row!),
    };
  }

  private async runExamples(
    workflowName: string,
    document: Record<string, unknown>,
    examples: DraftExample[],
  ): Promise<ExampleResult[]> {
    const results: ExampleResult[] = [];
    for (const [index, example] of examples.entries()) {
      let run;
      try {
        run = await this.dryRuns.controlPlaneDryRun(workflowName, {
          ruleSet: document,
          context: example.facts,
        });
      } catch (error) {
        const e = error as { code?: string; message?: string; status?: number };
        if (e.status && e.status < 500 && e.code !== 'VALIDATION_FAILED')
          throw invalidDraft(e.message ?? 'not executable', [{ field: 'ruleSet', message: e.message ?? '' }]);
        throw error;
      }
      const actual = run.outputFacts as Record<string, unknown>;
      const mismatches = [
        ...run.errors.map((err) => `error ${err.code}: ${err.message}`),
        ...meetsExpectation(actual, example.expected),
      ];
      results.push({
        index,
        passed: mismatches.length === 0,
        expected: example.expected,
        actual,
        mismatches,
      });
    }
    return results;
  }
}
