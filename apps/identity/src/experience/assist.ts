import { AppError, RequestContext, UnitOfWork } from '@arbiter/platform';
import { Inject, Injectable } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import { createHash } from 'node:crypto';
import { ExperienceErrors, experienceError } from './experience-errors';
import { ExperienceSettings } from './experience.settings';
import { Ranker, toolCallText } from './intercept';
import { ChatMessage, ChatModel } from './models/chat-model';
import { Collections, Knowledge } from './knowledge';
import { ExperienceRepository } from './persistence/experience.repository';
import { FILE_STORE, FileStore } from './stores/file-store';

/**
 * `POST /api/brain`: the model proxy. With a chat endpoint configured, its answer (cached: `cacheHit`);
 * without one, the heuristic path answers from the store (the lessons most relevant to the last user
 * message) and `model` says so (`heuristic:experience-search`).
 */
@Injectable()
export class Brain {
  constructor(
    @Inject(ChatModel) private readonly model: ChatModel,
    @Inject(Ranker) private readonly ranker: Ranker,
  ) {}

  async execute(input: { messages: ChatMessage[]; model?: string; maxTokens?: number }) {
    if (this.model.configured) return this.model.complete(input.messages, input);
    const last = [...input.messages].reverse().find((m) => m.role === 'user')?.content ?? '';
    const ranked = await this.ranker.rank(last, null, 5);
    const content = ranked.length
      ? ranked.map((r) => `- ${r.row.text}`).join('\n')
      : 'No lesson in the store matches this question.';
    return { content, model: 'heuristic:experience-search', tokensUsed: 0, cacheHit: false };
  }
}

export interface PortablePrinciple {
  format: 'arbiter-principle/v1';
  id: string;
  text: string;
  tier: string;
  confidence: number;
  sourceExamples: string[];
  tags: string[];
  exported: boolean;
  exportedAt: string;
}

/** `principles/share` (portable JSON, also written to the file store) and `principles/import`. */
@Injectable()
export class Principles {
  constructor(
    @Inject(UnitOfWork) private readonly uow: UnitOfWork,
    @Inject(ExperienceRepository) private readonly repository: ExperienceRepository,
    @Inject(Knowledge) private readonly knowledge: Knowledge,
    @Inject(FILE_STORE) private readonly files: FileStore,
  ) {}

  async share(input: { id: string; format?: string }): Promise<PortablePrinciple> {
    const format = input.format ?? 'json';
    if (format !== 'json') {
      throw AppError.badRequest(ExperienceErrors.FormatInvalid, `Unsupported format '${format}': use json`);
    }
    const entry = await this.uow.run(async (m) => {
      const row = await this.repository.byId(m, input.id);
      if (!row || row.kind === 'task') throw experienceError.entryNotFound(input.id);
      await this.repository.markExported(m, row.id);
      return row;
    });
    const portable: PortablePrinciple = {
      format: 'arbiter-principle/v1',
      id: entry.id,
      text: entry.text,
      tier: entry.tier,
      confidence: Number(entry.confidence),
      sourceExamples: entry.source_examples,
      tags: entry.tags.length ? entry.tags : entry.keywords.slice(0, 5),
      exported: true,
      exportedAt: new Date().toISOString(),
    };
    await this.files
      .put(`exports/${entry.id}.json`, JSON.stringify(portable, null, 2))
      .catch((error: Error) => {
        throw experienceError.fileStoreDown(error.message);
      });
    await this.knowledge.indexed([entry.id]);
    return portable;
  }

  /**
   * An imported principle starts in `T3` whatever its origin claimed, with its confidence capped at 0.6:
   * this deployment's verdicts decide how far it rises. A near-duplicate of an existing principle merges.
   */
  async import(input: {
    principle: { text: string; confidence?: number; sourceExamples?: string[]; tags?: string[] };
    source?: string;
  }) {
    const p = input.principle;
    const result = await this.uow.run((m) =>
      this.knowledge.add(m, {
        kind: 'principle',
        collection: Collections.principles,
        pattern: p.text.split(/[.;:]/)[0].slice(0, 200),
        text: p.text,
        tier: 'T3',
        confidence: Math.min(0.6, p.confidence ?? 0.5),
        tags: p.tags ?? [],
        sourceExamples: p.sourceExamples ?? [],
        meta: { importedFrom: input.source ?? null },
        source: `imported${input.source ? `:${input.source}` : ''}`.slice(0, 200),
      }),
    );
    await this.knowledge.indexed([result.entry.id]);
    return {
      id: result.entry.id,
      text: result.entry.text,
      tier: result.entry.tier,
      imported: true,
      mergedWithExisting: result.outcome === 'merged',
    };
  }
}

interface ContextAnswer {
  classification: { risk: 'low' | 'medium' | 'high'; category: string; reason: string };
  suggestions: { id: string; text: string; confidence: number; source: string }[];
}

const RISKS: { re: RegExp; risk: 'high' | 'medium'; category: string; reason: string }[] = [
  {
    re: /\brm\s+-[a-z]*r[a-z]*f|\brm\s+-[a-z]*f[a-z]*r|\bmkfs\b|\bdd\s+if=|:\(\)\s*\{/i,
    risk: 'high',
    category: 'destructive-shell',
    reason: 'recursive or raw deletion',
  },
  {
    re: /git\s+push\s+.*(--force|-f\b)|git\s+reset\s+--hard|git\s+clean\s+-[a-z]*f/i,
    risk: 'high',
    category: 'vcs-destructive',
    reason: 'rewrites or discards history',
  },
  {
    re: /\b(drop|truncate)\s+(table|database|schema)\b|\bdelete\s+from\s+\w+\s*(;|$)/i,
    risk: 'high',
    category: 'database-destructive',
    reason: 'drops or empties data',
  },
  {
    re: /(curl|wget)[^|]*\|\s*(sudo\s+)?(ba)?sh|\bchmod\s+-?R?\s*777\b|\bsudo\b/i,
    risk: 'high',
    category: 'privileged-or-remote-code',
    reason: 'runs remote code or escalates privileges',
  },
  {
    re: /\b(npm|pip|yarn|pnpm|apt(-get)?|brew)\s+(install|add|remove|uninstall)\b/i,
    risk: 'medium',
    category: 'dependency-change',
    reason: 'changes installed packages',
  },
  {
    re: /\bgit\s+(push|commit|merge|rebase|checkout)\b/i,
    risk: 'medium',
    category: 'vcs',
    reason: 'changes repository state',
  },
];

/**
 * `POST /api/pil-context`: a risk classification of the tool call and the lessons for it, cached for
 * `ContextCacheSeconds` (LRU, per tenant and call); `ttl` is the cache lifetime in seconds.
 */
@Injectable()
export class PilContext {
  private readonly cache: LRUCache<string, ContextAnswer>;

  constructor(
    @Inject(Ranker) private readonly ranker: Ranker,
    @Inject(ExperienceSettings) private readonly settings: ExperienceSettings,
  ) {
    this.cache = new LRUCache({ max: settings.contextCacheSize, ttl: settings.contextCacheSeconds * 1000 });
  }

  async execute(input: { toolName: string; toolInput: Record<string, unknown>; workspace?: string }) {
    const key = createHash('sha256')
      .update(
        JSON.stringify([RequestContext.tenantId(), input.toolName, input.toolInput, input.workspace ?? null]),
      )
      .digest('hex');
    const ttl = this.settings.contextCacheSeconds;
    const cached = this.cache.get(key);
    if (cached) return { ...cached, cacheHit: true, ttl };
    const text = toolCallText(input);
    const ranked = await this.ranker.rank(text, input.workspace ?? null, this.settings.maxSuggestions);
    const answer: ContextAnswer = {
      classification: classify(input.toolName, text),
      suggestions: ranked.map((r) => ({
        id: r.row.id,
        text: r.row.text,
        confidence: Number(r.row.confidence),
        source: r.row.collection,
      })),
    };
    this.cache.set(key, answer);
    return { ...answer, cacheHit: false, ttl };
  }
}

export function classify(toolName: string, text: string): ContextAnswer['classification'] {
  for (const r of RISKS) if (r.re.test(text)) return { risk: r.risk, category: r.category, reason: r.reason };
  if (/^(Write|Edit|MultiEdit|NotebookEdit|apply_patch)$/i.test(toolName)) {
    return { risk: 'medium', category: 'file-write', reason: 'modifies files' };
  }
  if (/^(WebFetch|WebSearch)$/i.test(toolName) || /\b(curl|wget|http)\b/i.test(text)) {
    return { risk: 'low', category: 'network', reason: 'reads from the network' };
  }
  if (/^(Read|Grep|Glob|LS)$/i.test(toolName)) return { risk: 'low', category: 'read', reason: 'reads only' };
  if (/^(Bash|shell)$/i.test(toolName))
    return { risk: 'medium', category: 'shell', reason: 'runs a command' };
  return { risk: 'low', category: 'other', reason: 'no risky pattern found' };
}
