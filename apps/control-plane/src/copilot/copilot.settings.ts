import { ConfigKey, ConfigurationError, StartupRules } from '@arbiter/platform';
import { IsInt, IsString, Max, Min } from 'class-validator';

/**
 * Ours: `Copilot:*`, the OpenAI-compatible chat-completions endpoint that drafts rule sets. Empty
 * `BaseUrl` (the default): no model is configured and the drafting route answers 503
 * `COPILOT_NOT_CONFIGURED`.
 */
export class CopilotSettings implements StartupRules {
  /** Base URL of the API, e.g. `https://api.openai.com/v1` or `http://127.0.0.1:11434/v1`; `/chat/completions` is appended. */
  @ConfigKey('Copilot:BaseUrl')
  @IsString()
  baseUrl = '';

  /** The model name sent as `model` (required when `BaseUrl` is set). */
  @ConfigKey('Copilot:Model')
  @IsString()
  model = '';

  /** Sent as `Authorization: Bearer <key>` when not empty (local servers often need none). */
  @ConfigKey('Copilot:ApiKey')
  @IsString()
  apiKey = '';

  /** How long one model call may take (1 s – 10 min). */
  @ConfigKey('Copilot:TimeoutMs', 'number')
  @IsInt()
  @Min(1_000)
  @Max(600_000)
  timeoutMs = 60_000;

  get configured(): boolean {
    return this.baseUrl.trim() !== '';
  }

  assertStartupRules(): void {
    if (!this.configured) return;
    let url: URL;
    try {
      url = new URL(this.baseUrl.trim());
    } catch {
      throw new ConfigurationError(`Copilot:BaseUrl is not a URL: '${this.baseUrl}'`, ['Copilot:BaseUrl']);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      throw new ConfigurationError('Copilot:BaseUrl must be an http(s) URL', ['Copilot:BaseUrl']);
    if (url.username || url.password)
      throw new ConfigurationError('Copilot:BaseUrl must not carry credentials (use Copilot:ApiKey)', [
        'Copilot:BaseUrl',
      ]);
    if (!this.model.trim())
      throw new ConfigurationError('Copilot:Model is required when Copilot:BaseUrl is set', [
        'Copilot:Model',
      ]);
  }
}

/** Settings classes (`@ConfigKey`) of this module; assembled by the app module. */
export const COPILOT_SETTINGS: (new () => object)[] = [CopilotSettings];
