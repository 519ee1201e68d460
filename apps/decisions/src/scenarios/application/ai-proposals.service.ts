import { AppError, UnitOfWork } from '@arbiter/platform';
import { buildTableModel, expectationFor, hashFacts } from '@arbiter/scenarios';
import { Inject, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { DecisionTableAuthoringService } from '../../decision-tables';
import { ScenarioErrors as E } from '../errors';
import { ScenarioEntity } from '../persistence/entities';
import { ScenarioRepository } from '../persistence/scenario.repository';
import { ScenariosSettings } from '../scenarios.settings';
import { ScenarioView, scenarioView } from './scenario-views';
import { loadTable, requireUuid } from './stored-table';

export interface AiProposalsView {
  aiModelUsed: string;
  /** scenarios the model proposed */
  proposed: number;
  /** proposals whose input facts the plan already holds (same canonical hash) */
  duplicates: number;
  /** proposals that were not objects of input facts */
  rejected: number;
  added: ScenarioView[];
}

const MAX_PROPOSALS = 200;

/**
 * Further scenarios proposed by an OpenAI-compatible chat model from the table's text
 * (`Scenarios:Ai:Endpoint`, `Scenarios:Ai:Model`). Proposals go through the same dedup (canonical hash)
 * and get their expectation from the table like generated ones; runs and coverage then treat them alike.
 * Without a configured endpoint the route answers 503 AI_MODEL_NOT_CONFIGURED: nothing is made up.
 */
@Injectable()
export class AiProposalsService {
  constructor(
    @Inject(UnitOfWork) private readonly uow: UnitOfWork,
    @Inject(ScenarioRepository) private readonly repo: ScenarioRepository,
    @Inject(DecisionTableAuthoringService) private readonly tables: DecisionTableAuthoringService,
    @Inject(ScenariosSettings) private readonly settings: ScenariosSettings,
  ) {}

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
    if (!plan.tableId)
      throw AppError.unprocessable(
        E.NotATablePlan,
        `Plan '${planId}' is the plan of workflow '${plan.workflowName}': AI proposals are made for decision-table plans`,
      );
    const { definition } = await loadTable(this.tables, plan.tableId);
    const proposals = await this.ask(endpoint, modelName, definition, count);
    const model = buildTableModel(definition);
    const columns = new Set(definition.inputColumns.map((c) => c.name));
    return this.uow.run(async (m) => {
      const existing = await this.repo.scenarios(m, plan.id);
      const hashes = new Set(existing.map((s) => s.inputHash));
      let position = existing.reduce((max, s) => Math.max(max, s.position), 0);
      let duplicates = 0;
      let rejected = 0;
      const added: ScenarioEntity[] = [];
      for (const p of proposals.slice(0, MAX_PROPOSALS)) {
        const facts = p && typeof p === 'object' ? (p as { inputFacts?: unknown }).inputFacts : undefined;
        if (!facts || typeof facts !== 'object' || Array.isArray(facts)) {
          rejected++;
          continue;
        }
        const inputFacts = Object.fromEntries(Object.entries(facts).filter(([k]) => columns.has(k)));
        const hash = hashFacts(inputFacts);
        if (hashes.has(hash)) {
          duplicates++;
          continue;
        }
        hashes.add(hash);
        const name = (p as { scenarioName?: unknown }).scenarioName;
        added.push({
          id: randomUUID(),
          tenantId: plan.tenantId,
          planId: plan.id,
          position: ++position,
          seedRuleCode: plan.seedRuleCode,
          scenarioName: (typeof name === 'string' && name.trim()
            ? name
            : `AI proposal ${added.length + 1}`
          ).slice(0, 500),
          type: 'AiProposed',
          scope: 'Rule',
          inputFacts,
          inputHash: hash,
          expectedBehavior: expectationFor(model, inputFacts, null, `proposed by ${modelName}`),
          origin: { probe: 'ai' },
          status: 'Pending',
          confirmed: false,
          confirmedBy: null,
          confirmedAt: null,
          createdAt: new Date(),
        });
      }
      await this.repo.insertScenarios(m, added);
      await this.repo.savePlan(m, { ...plan, aiModelUsed: modelName, modifiedAt: new Date() });
      return {
        aiModelUsed: modelName,
        proposed: proposals.length,
        duplicates,
        rejected,
        added: added.map((s) => scenarioView(s)),
      };
    });
  }

  /** One chat completion asking for a JSON array of `{ scenarioName, inputFacts }`. */
  private async ask(endpoint: string, model: string, definition: unknown, count: number): Promise<unknown[]> {
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
                'You write test scenarios for DMN decision tables. Answer only with a JSON array of objects ' +
                '{"scenarioName": string, "inputFacts": {<input column>: value}}: inputs a tester would try ' +
                '(edge cases, boundaries, unusual combinations). Dates and durations are ISO strings.',
            },
            {
              role: 'user',
              content: `Propose ${count} scenarios for this decision table:\n${JSON.stringify(definition)}`,
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
