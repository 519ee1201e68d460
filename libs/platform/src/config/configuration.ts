import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { EnvironmentName } from './environment';

/**
 * Hierarchical configuration with ASP.NET-style keys (`Section:Sub:Key`, case-insensitive).
 *
 * Sources, later wins: `config/default.json`, `config/<environment>.json`, explicit overrides,
 * then environment variables (`Section__Key` for `Section:Key`, and the documented aliases such as
 * `RULEENGINE_EXECUTIONROUTER_MODE`). JSON arrays become `Key:0`, `Key:1`, … as in .NET.
 */
export class Configuration {
  private readonly values = new Map<string, { key: string; value: string | null }>();

  constructor(entries: Iterable<[string, string | null]> = []) {
    for (const [key, value] of entries) this.set(key, value);
  }

  set(key: string, value: string | null): void {
    this.values.set(key.toLowerCase(), { key, value });
  }

  /** Raw string value, or undefined when the key is absent. */
  get(key: string): string | undefined {
    const entry = this.values.get(key.toLowerCase());
    return entry?.value ?? undefined;
  }

  has(key: string): boolean {
    return this.values.has(key.toLowerCase()) || this.childKeys(key).length > 0;
  }

  /** Direct child names under a section (`Section:Child:…` → `Child`), in insertion order. */
  childKeys(section: string): string[] {
    const prefix = section.toLowerCase() + ':';
    const children = new Map<string, string>();
    for (const [lower, { key }] of this.values) {
      if (!lower.startsWith(prefix)) continue;
      const rest = key.slice(prefix.length);
      const child = rest.split(':')[0];
      if (!children.has(child.toLowerCase())) children.set(child.toLowerCase(), child);
    }
    return [...children.values()];
  }

  /** An array value: `Key:0…n` children, or a single value split on commas. */
  getArray(key: string): string[] | undefined {
    const children = this.childKeys(key);
    if (children.length > 0 && children.every((c) => /^\d+$/.test(c))) {
      return children
        .map(Number)
        .sort((a, b) => a - b)
        .map((i) => this.get(`${key}:${i}`) ?? '');
    }
    const raw = this.get(key);
    if (raw === undefined) return undefined;
    const trimmed = raw.trim();
    if (trimmed.startsWith('[')) {
      const parsed = JSON.parse(trimmed);
      if (Array.isArray(parsed)) return parsed.map(String);
    }
    return trimmed === '' ? [] : trimmed.split(',').map((s) => s.trim());
  }

  /** A dictionary value (`Key:<name>` → value), e.g. `TokenConfigs:SigningKeysByTenant`. */
  getDictionary(key: string): Record<string, string> {
    const out: Record<string, string> = {};
    for (const child of this.childKeys(key)) {
      const value = this.get(`${key}:${child}`);
      if (value !== undefined) out[child] = value;
    }
    return out;
  }

  entries(): { key: string; value: string | null }[] {
    return [...this.values.values()];
  }
}

export interface ConfigurationSources {
  /** Folder holding `default.json` and `<environment>.json`. */
  configDir?: string;
  environment: EnvironmentName;
  /** Extra values applied after the files (used by the one-process launcher and by tests). */
  overrides?: Record<string, string | number | boolean | null | undefined | string[]>;
  env?: NodeJS.ProcessEnv;
}

/** Environment variables that the spec names directly, mapped to their configuration keys. */
const ENV_ALIASES: Record<string, string> = {
  RULEENGINE_EXECUTIONROUTER_MODE: 'RuleEngineOptions:ExecutionRouter:Mode',
  RULEENGINE_EXECUTIONROUTER_CANDIDATEVERSION: 'RuleEngineOptions:ExecutionRouter:CandidateVersion',
};

export function flattenJson(value: unknown, prefix = '', out: [string, string | null][] = []) {
  if (Array.isArray(value)) {
    value.forEach((item, i) => flattenJson(item, prefix ? `${prefix}:${i}` : String(i), out));
  } else if (value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) flattenJson(v, prefix ? `${prefix}:${k}` : k, out);
  } else if (prefix) {
    out.push([prefix, value === null || value === undefined ? null : String(value)]);
  }
  return out;
}

function readJsonFile(path: string): unknown {
  if (!existsSync(path)) return undefined;
  try {
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new Error(`Configuration file ${path} is not valid JSON: ${(error as Error).message}`);
  }
}

export function loadConfiguration(sources: ConfigurationSources): Configuration {
  const config = new Configuration();
  const apply = (value: unknown) => {
    for (const [k, v] of flattenJson(value)) {
      // Replacing an array or section replaces its children too, as a later source should.
      config.set(k, v);
    }
  };
  if (sources.configDir) {
    apply(readJsonFile(join(sources.configDir, 'default.json')));
    apply(readJsonFile(join(sources.configDir, `${sources.environment.toLowerCase()}.json`)));
  }
  for (const [key, value] of Object.entries(sources.overrides ?? {})) {
    if (value === undefined) continue;
    if (Array.isArray(value)) value.forEach((v, i) => config.set(`${key}:${i}`, v));
    else config.set(key, value === null ? null : String(value));
  }
  const env = sources.env ?? process.env;
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) continue;
    const alias = ENV_ALIASES[name.toUpperCase()];
    if (alias) config.set(alias, value);
    else if (name.includes('__')) config.set(name.split('__').join(':'), value);
  }
  return config;
}
