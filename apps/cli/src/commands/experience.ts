import { readFileSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';

/** `config.json` of the experience client (spec 3 part C): where the service is and its token. */
export interface ExperienceClientConfig {
  serverBaseUrl: string;
  serverAuthToken?: string;
}

export interface ExperienceOptions {
  config?: string;
  url?: string;
  token?: string;
  timeoutMs?: string;
}

/** `--config`, else `$ARBITER_EXPERIENCE_CONFIG`, else `~/.arbiter/experience/config.json`; flags win. */
export function loadExperienceConfig(options: ExperienceOptions): ExperienceClientConfig {
  const path =
    options.config ??
    process.env.ARBITER_EXPERIENCE_CONFIG ??
    join(homedir(), '.arbiter', 'experience', 'config.json');
  let file: Partial<ExperienceClientConfig> = {};
  try {
    file = JSON.parse(readFileSync(path, 'utf8')) as Partial<ExperienceClientConfig>;
  } catch {
    // no file: flags or the default address
  }
  return {
    serverBaseUrl: (options.url ?? file.serverBaseUrl ?? 'http://localhost:3002').replace(/\/+$/, ''),
    serverAuthToken: options.token ?? file.serverAuthToken,
  };
}

async function postJson(config: ExperienceClientConfig, path: string, body: unknown, timeoutMs: number) {
  const res = await fetch(`${config.serverBaseUrl}${path}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...(config.serverAuthToken ? { authorization: `Bearer ${config.serverAuthToken}` } : {}),
    },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(timeoutMs),
  });
  const json = (await res.json().catch(() => null)) as Record<string, unknown> | null;
  return { status: res.status, body: json };
}

/** A tool call as a hook gives it: Claude Code's `{ tool_name, tool_input, session_id, cwd }` or ours. */
function toolCall(input: Record<string, unknown>) {
  const toolName = String(input.toolName ?? input.tool_name ?? '');
  const toolInput = (input.toolInput ?? input.tool_input ?? {}) as Record<string, unknown>;
  const context = {
    ...((input.context as Record<string, unknown>) ?? {}),
    ...(input.session_id ? { sessionId: input.session_id } : {}),
    ...(input.cwd ? { workspace: input.cwd } : {}),
  };
  return { toolName, toolInput, context };
}

const lastSuggestionFile = (sessionId: unknown) =>
  join(tmpdir(), `arbiter-experience-${String(sessionId ?? 'default').replace(/[^A-Za-z0-9_-]/g, '_')}.txt`);

/**
 * `arbiter experience intercept`: the tool call JSON on stdin, the suggestion text on stdout (nothing when
 * there is none). Fails open: any error, a non-200 answer or the timeout (default 1500 ms) prints nothing
 * and exits 0, so a slow or absent service never blocks the agent.
 */
export async function runExperienceIntercept(stdin: string, options: ExperienceOptions): Promise<string> {
  try {
    const call = toolCall(JSON.parse(stdin) as Record<string, unknown>);
    if (!call.toolName) return '';
    const res = await postJson(loadExperienceConfig(options), '/api/intercept', call, timeout(options));
    const text = res.status === 200 && typeof res.body?.suggestions === 'string' ? res.body.suggestions : '';
    try {
      writeFileSync(lastSuggestionFile(call.context.sessionId), text);
    } catch {
      // best effort: posttool then reports without suggestions
    }
    return text;
  } catch {
    return '';
  }
}

/**
 * `arbiter experience posttool`: the tool call and its outcome on stdin (`outcome` ours, or Claude Code's
 * `tool_response`); the last suggestion of the session is attached. Prints the judge job id; fails open.
 */
export async function runExperiencePostTool(stdin: string, options: ExperienceOptions): Promise<string> {
  try {
    const input = JSON.parse(stdin) as Record<string, unknown>;
    const call = toolCall(input);
    const response = (input.tool_response ?? {}) as Record<string, unknown>;
    const outcome = (input.outcome as Record<string, unknown>) ?? {
      success: !(
        response.is_error === true ||
        response.success === false ||
        typeof response.error === 'string'
      ),
      error:
        typeof response.error === 'string'
          ? response.error
          : typeof response.stderr === 'string' && response.stderr
            ? response.stderr
            : null,
      duration_ms: Number(input.duration_ms ?? 0),
    };
    let suggestions: string | null = typeof input.suggestions === 'string' ? input.suggestions : null;
    if (suggestions === null) {
      try {
        suggestions = readFileSync(lastSuggestionFile(call.context.sessionId), 'utf8') || null;
      } catch {
        suggestions = null;
      }
    }
    const res = await postJson(
      loadExperienceConfig(options),
      '/api/posttool',
      { ...call, outcome, suggestions },
      timeout(options),
    );
    return res.status === 202 ? String(res.body?.judgeJobId ?? '') : '';
  } catch {
    return '';
  }
}

/**
 * `arbiter experience feedback --verdict <v>`: the helper the spec recommends. Reads a suggestion text on
 * stdin, takes every `(pointId: …, collection: …)` in it and sends the verdict for each; returns the
 * number recorded (errors are reported, not swallowed: this one is run by a person).
 */
export async function runExperienceFeedback(
  stdin: string,
  verdict: string,
  options: ExperienceOptions,
): Promise<{ recorded: number; failed: string[] }> {
  const config = loadExperienceConfig(options);
  const re = /pointId: ([0-9a-f-]{36}), collection: ([a-z0-9_-]+)/gi;
  let recorded = 0;
  const failed: string[] = [];
  for (let m = re.exec(stdin); m; m = re.exec(stdin)) {
    const res = await postJson(
      config,
      '/api/feedback',
      { pointId: m[1], collection: m[2], verdict },
      timeout(options),
    );
    if (res.status === 200) recorded++;
    else failed.push(`${m[1]}: ${res.status} ${String(res.body?.code ?? '')}`);
  }
  return { recorded, failed };
}

function timeout(options: ExperienceOptions): number {
  const n = Number(options.timeoutMs ?? 1500);
  return Number.isFinite(n) && n > 0 ? n : 1500;
}

export async function readStdin(): Promise<string> {
  if (process.stdin.isTTY) return '';
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
