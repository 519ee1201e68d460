import { Inject, Injectable } from '@nestjs/common';
import { CopilotSettings } from '../copilot.settings';
import { copilotNotConfigured, invalidModelAnswer, modelUnavailable } from '../application/copilot-errors';
import type { ChatMessage } from '../domain/prompt';

/** The largest model answer read (bytes); a longer one is refused. */
const MAX_ANSWER_BYTES = 2 * 1024 * 1024;

/**
 * A client of an OpenAI-compatible chat-completions endpoint (`POST <Copilot:BaseUrl>/chat/completions`)
 * asking for a structured answer (`response_format: { type: 'json_schema' }`): returns the parsed JSON
 * object of the first choice, or throws the copilot's 502/503 errors. Any server that speaks the
 * protocol works (OpenAI, Azure OpenAI's compatible endpoint, vLLM, Ollama, llama.cpp, LiteLLM).
 */
@Injectable()
export class ChatCompletionsClient {
  constructor(@Inject(CopilotSettings) private readonly settings: CopilotSettings) {}

  get configured(): boolean {
    return this.settings.configured;
  }

  get model(): string {
    return this.settings.model.trim();
  }

  async completeJson(
    messages: ChatMessage[],
    schema: { name: string; schema: Record<string, unknown> },
  ): Promise<Record<string, unknown>> {
    if (!this.configured) throw copilotNotConfigured();
    const url = `${this.settings.baseUrl.trim().replace(/\/+$/, '')}/chat/completions`;
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      accept: 'application/json',
    };
    if (this.settings.apiKey.trim()) headers.authorization = `Bearer ${this.settings.apiKey.trim()}`;
    let response: Response;
    try {
      response = await fetch(url, {
        method: 'POST',
        headers,
        redirect: 'error',
        signal: AbortSignal.timeout(this.settings.timeoutMs),
        body: JSON.stringify({
          model: this.model,
          messages,
          temperature: 0,
          response_format: {
            type: 'json_schema',
            json_schema: { name: schema.name, schema: schema.schema, strict: false },
          },
        }),
      });
    } catch (error) {
      const e = error as Error;
      throw modelUnavailable(
        e.name === 'TimeoutError'
          ? `no answer within ${this.settings.timeoutMs} ms (Copilot:TimeoutMs)`
          : e.message,
      );
    }
    const text = await readCapped(response);
    if (!response.ok) throw modelUnavailable(`HTTP ${response.status}`);
    let body: any;
    try {
      body = JSON.parse(text);
    } catch {
      throw invalidModelAnswer('the endpoint did not answer JSON');
    }
    const message = body?.choices?.[0]?.message;
    if (typeof message?.refusal === 'string' && message.refusal)
      throw invalidModelAnswer(`the model refused: ${message.refusal.slice(0, 200)}`);
    if (typeof message?.content !== 'string' || !message.content.trim())
      throw invalidModelAnswer('no choices[0].message.content');
    let parsed: unknown;
    try {
      parsed = JSON.parse(stripFence(message.content));
    } catch {
      throw invalidModelAnswer('the content is not JSON');
    }
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed))
      throw invalidModelAnswer('the content is not a JSON object');
    return parsed as Record<string, unknown>;
  }
}

/** Some servers wrap JSON in a Markdown fence despite `response_format`. */
function stripFence(content: string): string {
  const match = /^\s*```(?:json)?\s*\n([\s\S]*?)\n\s*```\s*$/.exec(content);
  return match ? match[1] : content;
}

async function readCapped(response: Response): Promise<string> {
  const declared = Number(response.headers.get('content-length') ?? '0');
  if (declared > MAX_ANSWER_BYTES) {
    await response.body?.cancel();
    throw invalidModelAnswer(`the answer exceeds ${MAX_ANSWER_BYTES} bytes`);
  }
  const reader = response.body?.getReader();
  if (!reader) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read().catch((error: Error) => {
      throw modelUnavailable(error.message);
    });
    if (done) break;
    size += value.byteLength;
    if (size > MAX_ANSWER_BYTES) {
      await reader.cancel();
      throw invalidModelAnswer(`the answer exceeds ${MAX_ANSWER_BYTES} bytes`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}
