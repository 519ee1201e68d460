import { UnitOfWork } from '@arbiter/platform';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { ExperienceSettings } from './experience.settings';
import { ChatModel } from './models/chat-model';
import { keywords } from './models/embedding';
import { Collections, Knowledge } from './knowledge';

type ModelTier = 'fast' | 'standard' | 'deep';
const EFFORT: Record<ModelTier, string> = { fast: 'low', standard: 'medium', deep: 'high' };
/** Model names per runtime and tier (the runtime's own families; `default` for any other runtime). */
const MODELS: Record<string, Record<ModelTier, string>> = {
  'claude-code': { fast: 'claude-haiku', standard: 'claude-sonnet', deep: 'claude-opus' },
  codex: { fast: 'gpt-5-mini', standard: 'gpt-5', deep: 'gpt-5' },
  default: { fast: 'small', standard: 'medium', deep: 'large' },
};

const KEYWORD_TIERS: { tier: ModelTier; words: string[] }[] = [
  {
    tier: 'deep',
    words: [
      'architect',
      'design',
      'migration',
      'migrate',
      'concurren',
      'race',
      'deadlock',
      'security',
      'vulnerab',
      'performance',
      'optimi',
      'distributed',
      'refactor',
      'rewrite',
      'algorithm',
      'debug',
      'investigat',
      'proof',
    ],
  },
  {
    tier: 'fast',
    words: [
      'typo',
      'rename',
      'format',
      'lint',
      'comment',
      'readme',
      'bump',
      'version',
      'list',
      'grep',
      'find',
      'search',
      'print',
      'log',
      'trivial',
      'simple',
      'small',
    ],
  },
  {
    tier: 'standard',
    words: [
      'implement',
      'feature',
      'fix',
      'bug',
      'test',
      'endpoint',
      'add',
      'update',
      'component',
      'function',
    ],
  },
];

const WORKFLOWS: { workflow: string; skill: string; words: string[] }[] = [
  {
    workflow: 'bugfix',
    skill: 'systematic-debugging',
    words: ['bug', 'fix', 'error', 'fail', 'crash', 'broken', 'regress', 'exception'],
  },
  {
    workflow: 'feature',
    skill: 'test-driven-development',
    words: ['add', 'implement', 'feature', 'new', 'support', 'endpoint', 'build'],
  },
  {
    workflow: 'refactor',
    skill: 'refactoring',
    words: ['refactor', 'clean', 'restructure', 'extract', 'rename', 'simplify', 'split'],
  },
  { workflow: 'review', skill: 'code-review', words: ['review', 'audit', 'check', 'pr', 'pull', 'feedback'] },
  {
    workflow: 'docs',
    skill: 'documentation',
    words: ['doc', 'readme', 'document', 'explain', 'guide', 'comment'],
  },
  {
    workflow: 'test',
    skill: 'test-driven-development',
    words: ['test', 'coverage', 'spec', 'flaky', 'e2e', 'unit'],
  },
  {
    workflow: 'investigate',
    skill: 'root-cause-tracing',
    words: ['why', 'investigat', 'slow', 'performance', 'profile', 'leak', 'understand'],
  },
  {
    workflow: 'release',
    skill: 'release-checklist',
    words: ['release', 'deploy', 'publish', 'version', 'changelog', 'tag'],
  },
];

function matches(words: string[], stems: string[]): number {
  return words.filter((w) => stems.some((s) => w.startsWith(s))).length;
}

/**
 * `route-model` and `route-task`, three layers fastest first: (1) keyword rules, (2) semantic search
 * over past tasks that reached `T2` or better (each routed task is recorded as a `T3` task entry; verdicts
 * and evolve promote the ones that worked), (3) the configured chat model, only when the best of the
 * first two is below `RoutingModelFallbackBelow`. `source` names the layer that decided.
 */
@Injectable()
export class Routing {
  private readonly logger = new Logger('ExperienceRouting');

  constructor(
    @Inject(UnitOfWork) private readonly uow: UnitOfWork,
    @Inject(Knowledge) private readonly knowledge: Knowledge,
    @Inject(ChatModel) private readonly model: ChatModel,
    @Inject(ExperienceSettings) private readonly settings: ExperienceSettings,
  ) {}

  async routeModel(input: { task: string; runtime?: string; complexity_hint?: string }) {
    const runtime = input.runtime && MODELS[input.runtime] ? input.runtime : 'default';
    const words = keywords(input.task);
    // (1) keywords and the caller's hint
    const scores = KEYWORD_TIERS.map((k) => ({ tier: k.tier, n: matches(words, k.words) }));
    const hint = (input.complexity_hint ?? '').toLowerCase();
    const hinted: ModelTier | null = /high|complex|hard/.test(hint)
      ? 'deep'
      : /low|simple|trivial/.test(hint)
        ? 'fast'
        : /medium|moderate/.test(hint)
          ? 'standard'
          : null;
    const best = scores.sort((a, b) => b.n - a.n)[0];
    let decision: { tier: ModelTier; confidence: number; source: string; reasoning: string } = hinted
      ? {
          tier: hinted,
          confidence: 0.85,
          source: 'keyword',
          reasoning: `complexity hint '${input.complexity_hint}'`,
        }
      : best.n
        ? {
            tier: best.tier,
            confidence: Math.min(0.9, 0.45 + 0.15 * best.n),
            source: 'keyword',
            reasoning: `${best.n} ${best.tier} keyword(s) in the task`,
          }
        : {
            tier: 'standard',
            confidence: 0.3,
            source: 'keyword',
            reasoning: 'no keyword matched: standard tier',
          };
    // (2) past tasks at T2 or better
    if (decision.confidence < 0.8) {
      const past = await this.similarTask(Collections.tasks, input.task);
      if (past && past.confidence > decision.confidence) {
        decision = {
          tier: (past.meta.tier as ModelTier) ?? decision.tier,
          confidence: past.confidence,
          source: 'semantic',
          reasoning: `similar past task (${past.tier}, similarity ${past.similarity.toFixed(2)}): ${past.text.slice(0, 120)}`,
        };
      }
    }
    // (3) model fallback on low confidence
    if (decision.confidence < this.settings.routingModelFallbackBelow) {
      if (this.model.configured) {
        const answer = await this.model
          .completeJson<{ tier?: string; reasoning?: string; confidence?: number }>([
            {
              role: 'system',
              content:
                'Choose a model tier for a coding task. Answer JSON only: {"tier":"fast|standard|deep","reasoning":"…","confidence":0.7}',
            },
            { role: 'user', content: input.task },
          ])
          .catch((error: Error) => {
            this.logger.warn(`model routing failed: ${error.message}`);
            return null;
          });
        if (answer && (answer.tier === 'fast' || answer.tier === 'standard' || answer.tier === 'deep')) {
          decision = {
            tier: answer.tier,
            confidence:
              typeof answer.confidence === 'number' ? Math.max(0, Math.min(1, answer.confidence)) : 0.7,
            source: 'model',
            reasoning: String(answer.reasoning ?? 'model decision').slice(0, 500),
          };
        }
      } else {
        decision.reasoning += '; low confidence and no chat model configured (heuristic answer)';
      }
    }
    await this.record(Collections.tasks, input.task, { tier: decision.tier, runtime });
    return {
      tier: decision.tier,
      model: MODELS[runtime][decision.tier],
      reasoningEffort: EFFORT[decision.tier],
      confidence: Math.round(decision.confidence * 100) / 100,
      source: decision.source,
      reasoning: decision.reasoning,
    };
  }

  async routeTask(input: { task: string; runtime?: string; context?: { repo?: string; scope?: string } }) {
    const words = keywords(`${input.task} ${input.context?.scope ?? ''}`);
    const scored = WORKFLOWS.map((w) => {
      const n = matches(words, w.words);
      return {
        ...w,
        confidence: n ? Math.min(0.9, 0.4 + 0.15 * n) : 0.1,
        reason: n ? `${n} keyword(s) matched` : 'no keyword',
      };
    }).sort((a, b) => b.confidence - a.confidence);
    let chosen = {
      workflow: scored[0].workflow,
      skill: scored[0].skill,
      confidence: scored[0].confidence,
      source: 'keyword',
      reasoning: `${scored[0].reason} for ${scored[0].workflow}`,
    };
    if (chosen.confidence < 0.8) {
      const past = await this.similarTask(Collections.workflows, input.task);
      const known = past && WORKFLOWS.find((w) => w.workflow === past.meta.workflow);
      if (past && known && past.confidence > chosen.confidence) {
        chosen = {
          workflow: known.workflow,
          skill: known.skill,
          confidence: past.confidence,
          source: 'semantic',
          reasoning: `similar past task (${past.tier}): ${past.text.slice(0, 120)}`,
        };
      }
    }
    if (chosen.confidence < this.settings.routingModelFallbackBelow) {
      if (this.model.configured) {
        const answer = await this.model
          .completeJson<{ workflow?: string; reasoning?: string }>([
            {
              role: 'system',
              content: `Choose a workflow among ${WORKFLOWS.map((w) => w.workflow).join(', ')}. Answer JSON only: {"workflow":"…","reasoning":"…"}`,
            },
            { role: 'user', content: JSON.stringify(input) },
          ])
          .catch(() => null);
        const known = WORKFLOWS.find((w) => w.workflow === answer?.workflow);
        if (known)
          chosen = {
            workflow: known.workflow,
            skill: known.skill,
            confidence: 0.7,
            source: 'model',
            reasoning: String(answer?.reasoning ?? 'model decision').slice(0, 500),
          };
      } else {
        chosen.reasoning += '; low confidence and no chat model configured (heuristic answer)';
      }
    }
    await this.record(Collections.workflows, input.task, {
      workflow: chosen.workflow,
      repo: input.context?.repo ?? null,
    });
    return {
      workflow: chosen.workflow,
      reasoning: chosen.reasoning,
      recommendedSkill: chosen.skill,
      source: chosen.source,
      alternatives: scored
        .filter((s) => s.workflow !== chosen.workflow)
        .slice(0, 3)
        .map((s) => ({ workflow: s.workflow, confidence: s.confidence, reason: s.reason })),
    };
  }

  private async similarTask(collection: string, task: string) {
    const { vector } = await this.knowledge.query(collection, task);
    const hits = await this.knowledge.vectors.search(collection, vector.length, vector, 10);
    const hit = hits.find((h) => h.row.tier !== 'T3' && h.similarity >= 0.75);
    if (!hit) return null;
    return {
      ...hit.row,
      similarity: hit.similarity,
      confidence: Math.min(0.95, hit.similarity * Number(hit.row.confidence) + 0.2),
    };
  }

  private async record(
    collection: typeof Collections.tasks | typeof Collections.workflows,
    task: string,
    meta: Record<string, unknown>,
  ) {
    const ids: string[] = [];
    await this.uow.run(async (m) => {
      const r = await this.knowledge.add(m, {
        kind: 'task',
        collection,
        pattern: task.slice(0, 200),
        text: task.slice(0, 600),
        confidence: 0.5,
        meta,
        source: 'routed',
      });
      ids.push(r.entry.id);
    });
    await this.knowledge.indexed(ids);
  }
}
