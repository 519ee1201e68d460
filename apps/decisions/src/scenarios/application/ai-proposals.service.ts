import { AppError, UnitOfWork } from '@arbiter/platform';
import { canonicalJson, hashFacts, workflowExpectation, type ExpectedBehavior } from '@arbiter/scenarios';
import { Inject, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { DecisionTableAuthoringService } from '../../decision-tables';
import { ScenarioErrors as E } from '../errors';
import { ScenarioEntity, ScenarioPlanEntity } from '../persistence/entities';
import { ScenarioRepository } from '../persistence/scenario.repository';
import { ScenariosSettings } from '../../settings';
import { ScenarioView, scenarioView } from './scenario-views';
import { ScenarioSimilarity } from './scenario-similarity';
import { ScenarioWorkers } from './scenario-workers';
import { loadTable, requireUuid } from './stored-table';
import { WorkflowScenariosService } from './workflow-scenarios.service';

export interface AiProposalsView {
  aiModelUsed: string;
  /** scenarios the model proposed */
  proposed: number;
  /** proposals whose input facts the plan already holds (same canonical hash) */
  duplicates: number;
  /** proposals too close to a scenario of the plan (`Scenarios:SimilarityThreshold`; 0 when off) */
  nearDuplicates: number;
  /** proposals that were not objects of input facts */
  rejected: number;
  added: ScenarioView[];
}

const MAX_PROPOSALS = 200;
/** a proposal's facts larger than this (canonical JSON) are rejected */
const MAX_FACTS_CHARS = 16_384;
/** existing scenarios a proposal is compared with for near duplicates (the plan's first, by position) */
const MAX_COMPARED = 5_000;

type Facts = Record<string, unknown>;

/** What a plan's expectations come from: a stored table version, or a workflow version. */
interface Subject {
  kind: 'table' | 'workflow';
  /** what the model is shown */
  document: unknown;
  /** the facts of a proposal this subject reads (a table: its input columns; a workflow: any) */
  factsOf(facts: Facts): Facts;
  /** the expected behaviour of each of these facts */
  expect(facts: Facts[], description: string): Promise<ExpectedBehavior[]>;
  scope: string;
}

/**
 * Further scenarios proposed by an OpenAI-compatible chat model from the table's or the workflow's text
 * (`Scenarios:Ai:Endpoint`, `Scenarios:Ai:Model`), for decision-table and workflow plans alike. Proposals
 * go through the same dedup (canonical hash, then vector similarity when `Scenarios:SimilarityThreshold` is
 * set) and get their expectation from the same engine as generated ones; runs and coverage then treat them
 * alike. Without a configured endpoint the route answers 503 AI_MODEL_NOT_CONFIGURED: nothing is made up.
 * The route is gated by the license capability `scenarios.ai` when licenses are enforced (controller).
 */
@Injectable()
export class AiProposalsService {
  constructor(
    @Inject(UnitOfWork) private readonly uow: UnitOfWork,
    @Inject(ScenarioRepository) private readonly repo: ScenarioRepository,
    @Inject(DecisionTableAuthoringService) private readonly tables: DecisionTableAuthoringService,
    @Inject(ScenariosSettings) private readonly settings: ScenariosSettings,
    @Inject(WorkflowScenariosService) private readonly workflows: WorkflowScenariosService,
    @Inject(ScenarioSimilarity) private readonly similarity: ScenarioSimilarity,
    @Inject(ScenarioWorkers) private readonly workers: ScenarioWorkers,
  ) {}

  private async subjectOf(plan: ScenarioPlanEntity): Promise<Subject> {
    if (plan.tableId) {
      const { definition } = await loadTable(this.tables, plan.tableId);
      const columns = new Set(definition.inputColumns.map((c) => c.name));
      return {
        kind: 'table',
        document: definition,
        factsOf: (facts) => Object.fromEntries(Object.entries(facts).filter(([k]) => columns.has(k))),
        // the table compiled and evaluated on a scenario worker thread
        expect: (facts, description) => this.workers.expectations(definition, facts, description),
        scope: 'Rule',
      };
    }
    const { model, document } = await this.workflows.versionOfPlan(plan);
    return {
      kind: 'workflow',
      document,
      factsOf: (facts) => facts,
      expect: async (facts, description) => {
        const out: ExpectedBehavior[] = [];
        for (const f of facts) out.push(await workflowExpectation(model, f, description));
        return out;
      },
      scope: 'Workflow',
    };
  }

  async propose(planId: string, count: number): Promise<AiProposalsView> {
    requireUuid(planId, E.PlanNotFound, 'Scenario plan');
    const endpoint = this.settings.aiEndpoint.trim();
    const modelName = this.settings.aiModel.trim();
    if (!endpoint || !modelName)
      throw new AppError(
        503,
        E.AiModelNotConfigured,
        'No AI model is configured (Scenarios:Ai:Endpoint and Scenarios:Ai:Model): no scenarios are proposed',
      );
    const plan = await this.uow.run((m) => this.repo.plan(m, planId));
    if (!plan) throw AppError.notFound(E.PlanNotFound, `Scenario plan '${planId}' does not exist`);
    const subject = await this.subjectOf(plan);
    const proposals = await this.ask(endpoint, modelName, subject, count);
    const existing = await this.uow.run((m) => this.repo.scenarios(m, plan.id));
    const hashes = new Set(existing.map((s) => s.inputHash));

    // shape and hash first, then near duplicates against the plan (one embeddings pass), then expectations
    let duplicates = 0;
    let rejected = 0;
    const fresh: { name: string; facts: Facts; hash: string }[] = [];
    for (const p of proposals.slice(0, MAX_PROPOSALS)) {
      const raw = p && typeof p === 'object' ? (p as { inputFacts?: unknown }).inputFacts : undefined;
      if (!raw || typeof raw !== 'object' || Array.isArray(raw)) {
        rejected++;
        continue;
      }
      const facts = subject.factsOf(raw as Facts);
      if (canonicalJson(facts).length > MAX_FACTS_CHARS) {
        rejected++;
        continue;
      }
      const hash = hashFacts(facts);
      if (hashes.has(hash)) {
        duplicates++;
        continue;
      }
      hashes.add(hash);
      const name = (p as { scenarioName?: unknown }).scenarioName;
      fresh.push({
        name: (typeof name === 'string' && name.trim() ? name : `AI proposal ${fresh.length + 1}`).slice(
          0,
          500,
        ),
        facts,
        hash,
      });
    }
    const distinct = await this.similarity.distinctProposals(
      existing.slice(0, MAX_COMPARED).map((s) => s.inputFacts),
      fresh.map((f) => f.facts),
    );
    const nearDuplicates = distinct.filter((d) => !d).length;
    const kept = fresh.filter((_, i) => distinct[i]);
    const expectations = await subject.expect(
      kept.map((f) => f.facts),
      `proposed by ${modelName}`,
    );

    return this.uow.run(async (m) => {
      // positions after whatever the plan holds now (a generation may have run meanwhile)
      const now = await this.repo.scenarios(m, plan.id);
      let position = now.reduce((max, s) => Math.max(max, s.position), 0);
      const present = new Set(now.map((s) => s.inputHash));
      const added: ScenarioEntity[] = [];
      kept.forEach((f, i) => {
        if (present.has(f.hash)) return;
        added.push({
          id: randomUUID(),
          tenantId: plan.tenantId,
          planId: plan.id,
          position: ++position,
          seedRuleCode: plan.seedRuleCode,
          scenarioName: f.name,
          type: 'AiProposed',
          scope: subject.scope,
          inputFacts: f.facts,
          inputHash: f.hash,
          expectedBehavior: expectations[i],
          origin: { probe: 'ai' },
          status: 'Pending',
          confirmed: false,
          confirmedBy: null,
          confirmedAt: null,
          createdAt: new Date(),
        });
      });
      await this.repo.insertScenarios(m, added);
      await this.repo.savePlan(m, { ...plan, aiModelUsed: modelName, modifiedAt: new Date() });
      return {
        aiModelUsed: modelName,
        proposed: proposals.length,
        duplicates,
        nearDuplicates,
        rejected,
        added: added.map((s) => scenarioView(s)),
      };
    });
  }

  /** One chat completion asking for a JSON array of `{ scenarioName, inputFacts }`. */
  private async ask(endpoint: string, model: string, subject: Subject, count: number): Promise<unknown[]> {
    const url = `${endpoint.replace(/\/+$/, '')}/chat/completions`;
    const key = this.settings.aiApiKey.trim();
    let content: unknown;
    try {
      const res = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}) },
        body: JSON.stringify({
          model,
          temperature: 0,
          messages: [
            {
              role: 'system',
              content:
                subject.kind === 'table'
                  ? 'You write test scenarios for DMN decision tables. Answer only with a JSON array of objects ' +
                    '{"scenarioName": string, "inputFacts": {<input column>: value}}: inputs a tester would try ' +
                    '(edge cases, boundaries, unusual combinations). Dates and durations are ISO strings.'
                  : 'You write test scenarios for business rule sets and decision flows. Answer only with a JSON ' +
                    'array of objects {"scenarioName": string, "inputFacts": {<fact>: value}} whose facts are ' +
                    'the ones the conditions read (nested objects where the paths are nested): inputs a tester ' +
                    'would try (edge cases, boundaries, each branch, errors). Dates and durations are ISO strings.',
            },
            {
              role: 'user',
              content: `Propose ${count} scenarios for this ${subject.kind === 'table' ? 'decision table' : 'rule set'}:\n${JSON.stringify(subject.document)}`,
            },
          ],
        }),
        signal: AbortSignal.timeout(this.settings.aiTimeoutMs),
      });
      if (!res.ok) throw new Error(`HTTP ${res.status}`);
      const body = (await res.json()) as { choices?: { message?: { content?: unknown } }[] };
      content = body.choices?.[0]?.message?.content;
    } catch (e) {
      throw new AppError(
        502,
        E.AiModelFailed,
        `The AI model endpoint failed: ${e instanceof Error ? e.message : String(e)}`,
      );
    }
    if (typeof content !== 'string')
      throw new AppError(502, E.AiModelFailed, 'The AI model answered no message content');
    const text = content.replace(/^\s*```(?:json)?\s*/i, '').replace(/\s*```\s*$/, '');
    try {
      const parsed = JSON.parse(text);
      const list = Array.isArray(parsed)
        ? parsed
        : Array.isArray(parsed?.scenarios)
          ? parsed.scenarios
          : null;
      if (!list) throw new Error('not an array');
      return list;
    } catch {
      throw new AppError(502, E.AiModelFailed, 'The AI model did not answer a JSON array of scenarios');
    }
  }
}
