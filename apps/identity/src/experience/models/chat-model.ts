import { Inject, Injectable } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import { createHash } from 'node:crypto';
import { experienceError } from '../experience-errors';
import { ExperienceSettings } from '../experience.settings';

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

export interface ChatAnswer {
  content: string;
  model: string;
  tokensUsed: number;
  cacheHit: boolean;
}

/**
 * The only way the experience service calls a model: an OpenAI-compatible `POST {ChatBaseUrl}/chat/completions`
 * (OpenAI, Ollama, vLLM…) when one is configured, with an LRU response cache keyed by the request.
 * Without one, `configured` is false and callers answer by their heuristic path.
 */
@Injectable()
export class ChatModel {
  private readonly cache: LRUCache<string, Omit<ChatAnswer, 'cacheHit'>> | null;

  constructor(@Inject(ExperienceSettings) private readonly settings: ExperienceSettings) {
    this.cache = settings.modelCacheSize > 0 ? new LRUCache({ max: settings.modelCacheSize }) : null;
  }

  get configured(): boolean {
    return !!this.settings.chatBaseUrl;
  }

  async complete(
    messages: ChatMessage[],
    options: { model?: string; maxTokens?: number } = {},
  ): Promise<ChatAnswer> {
    const model = options.model || this.settings.chatModel;
    const request = { model, messages, ...(options.maxTokens ? { max_tokens: options.maxTokens } : {}) };
    const key = createHash('sha256').update(JSON.stringify(request)).digest('hex');
    const cached = this.cache?.get(key);
    if (cached) return { ...cached, cacheHit: true };
    let res: Response;
    try {
      res = await fetch(`${this.settings.chatBaseUrl.replace(/\/+$/, '')}/chat/completions`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...(this.settings.chatApiKey ? { authorization: `Bearer ${this.settings.chatApiKey}` } : {}),
        },
        body: JSON.stringify({ ...request, temperature: 0 }),
        signal: AbortSignal.timeout(this.settings.modelTimeoutMs),
      });
    } catch (error) {
      throw experienceError.modelDown((error as Error).message);
    }
    if (!res.ok) throw experienceError.modelDown(`chat completions answered ${res.status}`);
    const body = (await res.json().catch(() => null)) as {
      model?: string;
      choices?: { message?: { content?: string } }[];
      usage?: { total_tokens?: number };
    } | null;
    const content = body?.choices?.[0]?.message?.content;
    if (typeof content !== 'string') throw experienceError.modelDown('chat answer without a message');
    const answer = {
      content,
      model: body?.model ?? model,
      tokensUsed: Number(body?.usage?.total_tokens ?? 0),
    };
    this.cache?.set(key, answer);
    return { ...answer, cacheHit: false };
  }

  /** The model's answer parsed as JSON (the first `{…}` in it), or null. */
  async completeJson<T>(messages: ChatMessage[]): Promise<T | null> {
    const answer = await this.complete(messages);
    const match = answer.content.match(/\{[\s\S]*\}/);
    if (!match) return null;
    try {
      return JSON.parse(match[0]) as T;
    } catch {
      return null;
    }
  }
}
