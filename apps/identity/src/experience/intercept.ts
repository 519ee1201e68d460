import { RequestContext, UnitOfWork } from '@arbiter/platform';
import { Inject, Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import { ExperienceSettings } from './experience.settings';
import { keywordScore } from './models/embedding';
import { Collections, cosine, Knowledge, TIER_RANK } from './knowledge';
import { ExperienceRepository } from './persistence/experience.repository';
import { Candidate } from './stores/vector-store';

/** A ranked suggestion. */
export interface Ranked extends Candidate {
  relevance: number;
  score: number;
}

export interface ToolCall {
  toolName: string;
  toolInput: Record<string, unknown>;
  context?: Record<string, unknown>;
}

const TIER_WEIGHT = [1.15, 1.1, 1.05, 1] as const;
/** The collections suggestions come from. */
const SUGGESTED = [Collections.lessons, Collections.principles] as const;

/** The words of a tool call ranking reads: the tool name, the input's strings, the context's task/intent. */
export function toolCallText(call: {
  toolName: string;
  toolInput?: unknown;
  context?: Record<string, unknown>;
}) {
  const parts: string[] = [call.toolName];
  const walk = (value: unknown, depth: number) => {
    if (depth > 4 || parts.join(' ').length > 4000) return;
    if (typeof value === 'string') parts.push(value.slice(0, 1000));
    else if (typeof value === 'number' || typeof value === 'boolean') parts.push(String(value));
    else if (Array.isArray(value)) value.slice(0, 20).forEach((v) => walk(v, depth + 1));
    else if (value && typeof value === 'object')
      Object.values(value)
        .slice(0, 30)
        .forEach((v) => walk(v, depth + 1));
  };
  walk(call.toolInput, 0);
  for (const key of ['task', 'intent', 'goal', 'prompt', 'description']) {
    const v = call.context?.[key];
    if (typeof v === 'string') parts.push(v.slice(0, 500));
  }
  return parts.join(' ');
}

export function contextString(
  context: Record<string, unknown> | undefined,
  ...keys: string[]
): string | null {
  for (const key of keys) {
    const v = context?.[key];
    if (typeof v === 'string' && v.trim()) return v.trim().slice(0, 500);
  }
  return null;
}

/** One suggestion line: the entry id and collection are embedded so `feedback` can be sent from the text. */
export function suggestionLine(c: Candidate): string {
  return `- [${c.row.tier} ${c.row.confidence.toFixed(2)}] ${c.row.text} (pointId: ${c.row.id}, collection: ${c.row.collection})`;
}

export const SUGGESTION_HEADER = '[arbiter experience] Lessons from past sessions for this tool call:';

/** Reads `(pointId: <uuid>, collection: <name>)` references back out of a suggestion text. */
export function suggestionRefs(text: string | null | undefined): { pointId: string; collection: string }[] {
  if (!text) return [];
  const out: { pointId: string; collection: string }[] = [];
  const re = /pointId: ([0-9a-f-]{36}), collection: ([a-z0-9_-]+)/gi;
  for (let m = re.exec(text); m; m = re.exec(text))
    out.push({ pointId: m[1].toLowerCase(), collection: m[2] });
  return out;
}

/**
 * Ranking shared by intercept, pil-context and the heuristic brain: candidates by vector and by
 * keyword, relevance = 0.65·cosine + 0.35·keyword share; below `RelevanceThreshold` dropped; the rest
 * ordered by relevance × tier weight × (0.75 + 0.25·confidence) × 1.15 in the call's own workspace;
 * near-duplicates (cosine ≥ `AnswerDuplicateSimilarity`) of a chosen suggestion skipped.
 */
@Injectable()
export class Ranker {
  constructor(
    @Inject(Knowledge) private readonly knowledge: Knowledge,
    @Inject(ExperienceSettings) private readonly settings: ExperienceSettings,
  ) {}

  async rank(text: string, workspace: string | null, limit: number): Promise<Ranked[]> {
    const ranked: Ranked[] = [];
    const { vector, words } = await this.knowledge.queryAll(SUGGESTED, text);
    for (const collection of SUGGESTED) {
      const hits = await this.knowledge.vectors.search(collection, vector.length, vector, 30);
      for (const c of hits) {
        const kw = keywordScore(words, c.keywordSet);
        const relevance = 0.65 * Math.max(0, c.similarity) + 0.35 * kw;
        if (relevance < this.settings.relevanceThreshold) continue;
        const sameWorkspace = workspace && c.row.workspace === workspace ? 1.15 : 1;
        const score =
          relevance * TIER_WEIGHT[TIER_RANK[c.row.tier]] * (0.75 + 0.25 * c.row.confidence) * sameWorkspace;
        ranked.push({ ...c, relevance, score });
      }
    }
    ranked.sort((a, b) => b.score - a.score);
    const chosen: Ranked[] = [];
    for (const r of ranked) {
      if (chosen.some((c) => c.row.id === r.row.id)) continue;
      if (chosen.some((c) => cosine(c.vector, r.vector) >= this.settings.answerDuplicateSimilarity)) continue;
      chosen.push(r);
      if (chosen.length >= limit) break;
    }
    return chosen;
  }
}

/**
 * `POST /api/intercept`: before a tool call, what past sessions learnt about it. No model is called on
 * this path; the interception is logged in batches (stats), off the request.
 */
@Injectable()
export class Intercept implements OnModuleDestroy {
  private readonly logger = new Logger('ExperienceIntercept');
  private pending: Map<string, Parameters<ExperienceRepository['recordInterception']>[1]> = new Map();
  private timer: NodeJS.Timeout | null = null;

  constructor(
    @Inject(Ranker) private readonly ranker: Ranker,
    @Inject(UnitOfWork) private readonly uow: UnitOfWork,
    @Inject(ExperienceRepository) private readonly repository: ExperienceRepository,
    @Inject(ExperienceSettings) private readonly settings: ExperienceSettings,
  ) {}

  async execute(call: ToolCall): Promise<{ suggestions: string | null; hasSuggestions: boolean }> {
    const workspace = contextString(call.context, 'workspace', 'cwd', 'repo');
    const sessionId = contextString(call.context, 'sessionId', 'session_id');
    const ranked = await this.ranker.rank(toolCallText(call), workspace, this.settings.maxSuggestions);
    const lines: string[] = [];
    let chars = SUGGESTION_HEADER.length;
    const budget = this.settings.tokenCap * 4;
    for (const r of ranked) {
      const line = suggestionLine(r);
      if (chars + line.length + 1 > budget) break;
      lines.push(line);
      chars += line.length + 1;
    }
    this.log({
      sessionId,
      workspace,
      toolName: call.toolName.slice(0, 200),
      suggestedIds: ranked.slice(0, lines.length).map((r) => r.row.id),
    });
    if (!lines.length) return { suggestions: null, hasSuggestions: false };
    return { suggestions: [SUGGESTION_HEADER, ...lines].join('\n'), hasSuggestions: true };
  }

  private log(row: Parameters<ExperienceRepository['recordInterception']>[1][number]) {
    const tenant = RequestContext.tenantId();
    const list = this.pending.get(tenant) ?? [];
    list.push(row);
    this.pending.set(tenant, list);
    this.timer ??= setTimeout(() => void this.flush(), 200);
  }

  /** Writes the buffered interceptions (also on shutdown). */
  async flush(): Promise<void> {
    this.timer = null;
    const batches = this.pending;
    this.pending = new Map();
    for (const [tenantId, rows] of batches) {
      await this.uow
        .run((m) => this.repository.recordInterception(m, rows), { tenantId })
        .catch((error: Error) => this.logger.warn(`interception log lost: ${error.message}`));
    }
  }

  async onModuleDestroy(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    await this.flush();
  }
}
