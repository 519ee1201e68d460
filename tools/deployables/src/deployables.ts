import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { isAbsolute, join, relative, sep } from 'node:path';
import {
  bindConfig,
  configKeysOf,
  Configuration,
  ConfigurationError,
  EnvironmentName,
  HttpSettings,
  loadConfiguration,
} from '@arbiter/platform';
import { loadAll } from 'js-yaml';

/**
 * Static checks of an app's deployables (docker/<app>.Dockerfile, .dockerignore, k8s/**), for a
 * machine where neither Docker nor a cluster runs: it parses the files and checks that the pieces
 * that must agree do agree: the port (config/default.json `Http:Port`, EXPOSE, HEALTHCHECK,
 * containerPort, probes, Service targetPort), the health paths, the HPA's target, the env keys
 * (known configuration keys, and every key the app refuses to start without provided by the
 * Deployment from a ConfigMap, a literal or a Secret that secrets.example.yaml shows), mounted key
 * files, NATS/PostgreSQL Services, and that kustomization.yaml lists every manifest.
 *
 * Usage (an app's `test/deployables.spec.ts`):
 *   expect(checkDeployables({ app: 'control-plane', repoRoot, settings: CONTROL_PLANE_SETTINGS,
 *     requiredKeys: [...] }).problems).toEqual([]);
 *
 * Development only (the `@arbiter/deployables` tool, an app's devDependency): it never ships in an image.
 */

type SettingsClass = new () => object;
type Doc = Record<string, any>;

/** Environment variables that are not `Section__Key` configuration keys but are read by the platform. */
export const PLATFORM_ENVIRONMENT_VARIABLES = [
  'NODE_ENV',
  'ARBITER_ENVIRONMENT',
  'ARBITER_LOG_LEVEL',
  'OTEL_EXPORTER_OTLP_ENDPOINT',
  'OTEL_SERVICE_NAME',
  'OTEL_RESOURCE_ATTRIBUTES',
];

/** The documented environment aliases (see loadConfiguration): variable → configuration key. */
export const CONFIGURATION_ENV_ALIASES: Record<string, string> = {
  RULEENGINE_EXECUTIONROUTER_MODE: 'RuleEngineOptions:ExecutionRouter:Mode',
  RULEENGINE_EXECUTIONROUTER_CANDIDATEVERSION: 'RuleEngineOptions:ExecutionRouter:CandidateVersion',
};

/** Keys every service reads without a settings class (database module, logger). */
export const PLATFORM_CONFIG_KEYS = ['Database:ApplicationRole', 'Database:PoolSize', 'Logging:Level'];

export interface DeployableExpectations {
  /** Folder name under apps/ and docker/<app>.Dockerfile: `control-plane`, `decisions`, `identity`. */
  app: string;
  /** Repository root; relative paths below are resolved against it. */
  repoRoot: string;
  /** The app's settings classes (`CONTROL_PLANE_SETTINGS`, …): its known configuration keys. */
  settings: SettingsClass[];
  /**
   * Keys the app refuses to start without outside Development/Testing. Joined with the keys found
   * by binding `settings` against the shipped config files (default.json + production.json).
   */
  requiredKeys?: string[];
  /** Defaults to `Http:Port` of apps/<app>/config/default.json. */
  port?: number;
  /** Defaults to `arbiter/<app>`. */
  image?: string;
  configDir?: string;
  dockerfile?: string;
  dockerignore?: string;
  k8sDir?: string;
  readinessPath?: string;
  livenessPath?: string;
  minReplicas?: number;
  cpuUtilization?: number;
  /** Environment in which required keys are derived. Default Production. */
  environment?: EnvironmentName;
  /** More allowed plain environment variable names (not `Section__Key`). */
  extraEnvironmentVariables?: string[];
  /** More allowed configuration keys (`Section:Key`). */
  extraConfigKeys?: string[];
}

export interface ResolvedEnvVar {
  name: string;
  /** Configuration key it sets (`Section:Key`), or the plain variable name. */
  key: string;
  source: 'literal' | 'configMap' | 'secret' | 'fieldRef';
  /** Known for literals and ConfigMap values; for Secrets, the example's placeholder value. */
  value?: string;
  from?: string;
}

export interface DeployablesReport {
  problems: string[];
  port: number;
  image: string;
  deployment?: string;
  services: string[];
  hpa?: string;
  requiredKeys: string[];
  env: ResolvedEnvVar[];
}

interface LoadedDoc {
  file: string;
  doc: Doc;
}

const PROBE_PLACEHOLDER = 'x'.repeat(64);

/** `Http:Port` of an app's config/default.json. */
export function readHttpPort(configDir: string): number {
  const json = JSON.parse(readFileSync(join(configDir, 'default.json'), 'utf8'));
  const port = json?.Http?.Port;
  if (typeof port !== 'number')
    throw new Error(`${join(configDir, 'default.json')} has no numeric Http.Port`);
  return port;
}

/** `Section__Key` → `Section:Key`; documented aliases; plain names stay as they are. */
export function configKeyOfEnv(name: string): string {
  const alias = CONFIGURATION_ENV_ALIASES[name.toUpperCase()];
  if (alias) return alias;
  return name.includes('__') ? name.split('__').join(':') : name;
}

export function envNameOfKey(key: string): string {
  return key.split(':').join('__');
}

function isConfigurationError(error: unknown): error is ConfigurationError {
  return (
    error instanceof ConfigurationError ||
    (error instanceof Error &&
      error.name === 'ConfigurationError' &&
      Array.isArray((error as ConfigurationError).keys))
  );
}

/**
 * The keys an app cannot start without in `environment` when only its shipped config files are
 * present: each settings class is bound (and its startup rules run) with no environment variables;
 * every key named by the resulting ConfigurationError is required. Keys are then filled with a
 * placeholder and the class bound again, so rules that stop at the first bad key still reveal all.
 */
export function deriveRequiredKeys(
  settings: SettingsClass[],
  configDir: string | undefined,
  environment: EnvironmentName = 'Production',
): string[] {
  const base = loadConfiguration({ configDir, environment, env: {} });
  const required = new Set<string>();
  for (const type of settings) {
    const filled = new Set<string>();
    for (let attempt = 0; attempt < 20; attempt++) {
      const config = new Configuration(
        base.entries().map((e) => [e.key, e.value] as [string, string | null]),
      );
      for (const key of filled) config.set(key, PROBE_PLACEHOLDER);
      try {
        const instance = bindConfig(type, config) as { assertStartupRules?: (env: EnvironmentName) => void };
        instance.assertStartupRules?.(environment);
        break;
      } catch (error) {
        if (!isConfigurationError(error)) throw error;
        const fresh = error.keys.filter((k) => !filled.has(k));
        if (fresh.length === 0) break;
        for (const key of fresh) {
          filled.add(key);
          required.add(key);
        }
      }
    }
  }
  return [...required];
}

// ------------------------------------------------------------------------------------------------
// Dockerfile

interface Instruction {
  keyword: string;
  args: string;
  line: number;
}

interface Stage {
  from: string;
  name?: string;
  instructions: Instruction[];
}

function parseDockerfile(text: string): { globalArgs: Record<string, string>; stages: Stage[] } {
  const lines = text.split(/\r?\n/);
  const instructions: Instruction[] = [];
  let current: { text: string; line: number } | null = null;
  lines.forEach((raw, index) => {
    const trimmed = raw.trim();
    if (current === null && (trimmed === '' || trimmed.startsWith('#'))) return;
    if (current !== null && trimmed.startsWith('#')) return; // comment inside a continuation
    const continued = /\\\s*$/.test(raw);
    const part = continued ? raw.replace(/\\\s*$/, '') : raw;
    current = current
      ? { text: `${current.text} ${part.trim()}`, line: current.line }
      : { text: part.trim(), line: index + 1 };
    if (!continued) {
      const match = /^(\S+)\s*(.*)$/s.exec(current.text);
      if (match)
        instructions.push({ keyword: match[1].toUpperCase(), args: match[2].trim(), line: current.line });
      current = null;
    }
  });
  const globalArgs: Record<string, string> = {};
  const stages: Stage[] = [];
  for (const instruction of instructions) {
    if (instruction.keyword === 'FROM') {
      const match = /^(?:--\S+\s+)*(\S+)(?:\s+AS\s+(\S+))?/i.exec(instruction.args);
      const from = (match?.[1] ?? '').replace(
        /\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?/g,
        (_m, name) => globalArgs[name] ?? `$${name}`,
      );
      stages.push({ from, name: match?.[2], instructions: [] });
    } else if (stages.length === 0) {
      if (instruction.keyword === 'ARG') {
        const [name, ...value] = instruction.args.split('=');
        globalArgs[name.trim()] = value.join('=').trim();
      }
    } else {
      stages[stages.length - 1].instructions.push(instruction);
    }
  }
  return { globalArgs, stages };
}

function parseEnvInstruction(args: string): Record<string, string> {
  const out: Record<string, string> = {};
  if (!args.includes('=')) {
    const [name, ...rest] = args.split(/\s+/);
    out[name] = rest.join(' ');
    return out;
  }
  const pattern = /([A-Za-z_][A-Za-z0-9_]*)=("([^"]*)"|'([^']*)'|(\S*))/g;
  for (const match of args.matchAll(pattern)) out[match[1]] = match[3] ?? match[4] ?? match[5] ?? '';
  return out;
}

function execOrShell(args: string): string[] {
  const text = args.trim();
  if (text.startsWith('[')) {
    try {
      const parsed = JSON.parse(text);
      if (Array.isArray(parsed)) return parsed.map(String);
    } catch {
      /* shell form after all */
    }
  }
  return text.split(/\s+/);
}

function checkDockerfile(
  file: string,
  label: string,
  app: string,
  port: number,
  livenessPath: string,
  problems: string[],
): { user?: string } {
  if (!existsSync(file)) {
    problems.push(`${label}: missing`);
    return {};
  }
  const { stages } = parseDockerfile(readFileSync(file, 'utf8'));
  const text = readFileSync(file, 'utf8');
  if (stages.length < 2) problems.push(`${label}: not multi-stage (${stages.length} FROM)`);
  if (stages.length === 0) return {};
  const all = stages.flatMap((s) => s.instructions);
  const runs = all.filter((i) => i.keyword === 'RUN').map((i) => i.args);
  const workspace = `@arbiter/${app}`;
  if (!runs.some((r) => /\bturbo\s+(run\s+)?build\b/.test(r) && r.includes(`--filter=${workspace}...`))) {
    problems.push(`${label}: no build stage running \`turbo run build --filter=${workspace}...\``);
  }
  if (!runs.some((r) => /\bnpm\s+ci\b/.test(r) && !/--omit=dev/.test(r))) {
    problems.push(`${label}: no \`npm ci\` (with dev dependencies) for the build`);
  }
  const prodInstall = runs.find((r) => /\bnpm\s+(ci|prune)\b/.test(r) && /--omit=dev|--production\b/.test(r));
  if (!prodInstall)
    problems.push(`${label}: no production-only install (\`npm ci --omit=dev\` or \`npm prune --omit=dev\`)`);
  else if (
    /\bnpm\s+ci\b/.test(prodInstall) &&
    !new RegExp(`--workspace[= ](${workspace}|apps/${app})\\b`).test(prodInstall)
  ) {
    problems.push(`${label}: \`npm ci --omit=dev\` is not restricted to --workspace=${workspace}`);
  }

  const final = stages[stages.length - 1];
  const of = (keyword: string) => final.instructions.filter((i) => i.keyword === keyword);
  if (!/^node:20([.-]|$)/.test(final.from)) {
    problems.push(
      `${label}: the runtime stage's base image is '${final.from}', expected node:20 (Node ≥ 20.19)`,
    );
  }
  const env = Object.assign({}, ...of('ENV').map((i) => parseEnvInstruction(i.args)));
  if (env.NODE_ENV !== 'production')
    problems.push(`${label}: the runtime stage does not set ENV NODE_ENV=production`);

  const exposed = of('EXPOSE').flatMap((i) => i.args.split(/\s+/).map((p) => p.replace(/\/(tcp|udp)$/i, '')));
  if (!exposed.includes(String(port))) {
    problems.push(
      `${label}: EXPOSE ${exposed.join(' ') || '(none)'} does not include the app's port ${port}`,
    );
  }
  const extra = exposed.filter((p) => p !== String(port));
  if (extra.length) problems.push(`${label}: EXPOSE ${extra.join(' ')} is not the app's port ${port}`);

  const users = of('USER');
  const user = users.length ? users[users.length - 1].args.split(':')[0].trim() : undefined;
  if (!user) problems.push(`${label}: the runtime stage has no USER (runs as root)`);
  else if (user === 'root' || user === '0') problems.push(`${label}: USER ${user} is root`);

  const workdirs = of('WORKDIR');
  const workdir = workdirs.length ? workdirs[workdirs.length - 1].args : '';
  if (!workdir.replace(/\/+$/, '').endsWith(`/apps/${app}`)) {
    problems.push(`${label}: the runtime WORKDIR is '${workdir}', expected the app folder …/apps/${app}`);
  }
  const cmds = of('CMD');
  const cmd = cmds.length ? execOrShell(cmds[cmds.length - 1].args) : [];
  if (cmd.join(' ') !== 'node dist/main.js')
    problems.push(`${label}: CMD is '${cmd.join(' ')}', expected node dist/main.js`);
  const entrypoints = of('ENTRYPOINT');
  if (entrypoints.length)
    problems.push(`${label}: ENTRYPOINT set in the runtime stage; CMD alone should start the app`);

  const healthchecks = of('HEALTHCHECK');
  const healthcheck = healthchecks.length ? healthchecks[healthchecks.length - 1].args : '';
  if (!healthcheck || /^NONE\b/i.test(healthcheck))
    problems.push(`${label}: the runtime stage has no HEALTHCHECK`);
  else {
    const command = healthcheck.replace(/^(--\S+\s+)*/, '');
    if (!/^CMD\s/i.test(command)) problems.push(`${label}: HEALTHCHECK has no CMD`);
    const argv = execOrShell(command.replace(/^CMD\s+/i, ''));
    if (argv[0] !== 'node')
      problems.push(`${label}: HEALTHCHECK runs '${argv[0]}', expected node (no curl/wget in slim images)`);
    if (!healthcheck.includes(`'${livenessPath}'`) && !healthcheck.includes(`"${livenessPath}"`)) {
      problems.push(`${label}: HEALTHCHECK does not call ${livenessPath}`);
    }
    if (!new RegExp(`\\b${port}\\b`).test(healthcheck))
      problems.push(`${label}: HEALTHCHECK does not use port ${port}`);
  }
  if (!text.includes(`apps/${app}/config`))
    problems.push(`${label}: apps/${app}/config is not copied (the app reads config/ next to dist/)`);
  if (!/\blibs\//.test(text)) {
    problems.push(
      `${label}: never copies libs/: node_modules/@arbiter/* are symlinks to the libraries' dist and package.json`,
    );
  }
  return { user };
}

function checkDockerignore(file: string, label: string, problems: string[]): void {
  if (!existsSync(file)) {
    problems.push(`${label}: missing`);
    return;
  }
  const patterns = new Set(
    readFileSync(file, 'utf8')
      .split(/\r?\n/)
      .map((l) => l.trim())
      .filter((l) => l && !l.startsWith('#'))
      .map((l) =>
        l
          .replace(/^\*\*\//, '')
          .replace(/^\/+/, '')
          .replace(/\/+$/, ''),
      ),
  );
  for (const required of ['node_modules', 'dist', '.data', '.turbo', 'coverage', '.git']) {
    if (!patterns.has(required)) problems.push(`${label}: does not exclude ${required}`);
  }
}

// ------------------------------------------------------------------------------------------------
// Kubernetes

function yamlFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const name of readdirSync(d).sort()) {
      const path = join(d, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (/\.ya?ml$/i.test(name)) out.push(path);
    }
  };
  if (existsSync(dir)) walk(dir);
  return out;
}

const toPosix = (p: string) => p.split(sep).join('/');

function labelsMatch(
  selector: Record<string, string> | undefined,
  labels: Record<string, string> | undefined,
): boolean {
  if (!selector || Object.keys(selector).length === 0) return false;
  return Object.entries(selector).every(([k, v]) => labels?.[k] === v);
}

function secretData(doc: Doc): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(doc.data ?? {}))
    out[k] = Buffer.from(String(v), 'base64').toString('utf8');
  for (const [k, v] of Object.entries(doc.stringData ?? {})) out[k] = String(v);
  return out;
}

interface Inventory {
  root: string;
  docs: LoadedDoc[];
  examples: LoadedDoc[];
  configMaps: Map<string, LoadedDoc>;
  secrets: Map<string, LoadedDoc>;
  services: LoadedDoc[];
  kustomization?: LoadedDoc;
}

function loadInventory(k8sDir: string, repoRoot: string, problems: string[]): Inventory {
  const inventory: Inventory = {
    root: k8sDir,
    docs: [],
    examples: [],
    configMaps: new Map(),
    secrets: new Map(),
    services: [],
  };
  const label = (file: string) => toPosix(relative(repoRoot, file));
  const files = yamlFiles(k8sDir);
  if (files.length === 0) problems.push(`${label(k8sDir)}: no manifests`);
  for (const file of files) {
    let docs: unknown[];
    try {
      docs = loadAll(readFileSync(file, 'utf8'));
    } catch (error) {
      problems.push(`${label(file)}: not valid YAML: ${(error as Error).message.split('\n')[0]}`);
      continue;
    }
    const isExample = /\.example\.ya?ml$/i.test(file);
    for (const doc of docs) {
      if (doc === null || doc === undefined) continue;
      if (typeof doc !== 'object' || Array.isArray(doc)) {
        problems.push(`${label(file)}: a document is not a mapping`);
        continue;
      }
      const d = doc as Doc;
      const loaded = { file: label(file), doc: d };
      if (d.kind === 'Kustomization') {
        inventory.kustomization = { file, doc: d };
        continue;
      }
      if (!d.apiVersion || !d.kind || !d.metadata?.name) {
        problems.push(`${label(file)}: a document lacks apiVersion, kind or metadata.name`);
        continue;
      }
      if (isExample) {
        inventory.examples.push(loaded);
        if (d.kind === 'Secret') inventory.secrets.set(d.metadata.name, loaded);
        continue;
      }
      inventory.docs.push(loaded);
      if (d.kind === 'Secret' && (d.data || d.stringData)) {
        problems.push(
          `${loaded.file}: Secret ${d.metadata.name} holds values in a committed manifest; reference Secrets by name instead`,
        );
      }
      if (d.kind === 'ConfigMap') {
        inventory.configMaps.set(d.metadata.name, loaded);
        for (const [k, v] of Object.entries(d.data ?? {})) {
          if (typeof v !== 'string')
            problems.push(
              `${loaded.file}: ConfigMap ${d.metadata.name}: ${k} is a ${typeof v}, not a string (quote it)`,
            );
        }
      }
      if (d.kind === 'Service') inventory.services.push(loaded);
    }
  }
  return inventory;
}

function checkKustomization(inventory: Inventory, repoRoot: string, problems: string[]): void {
  const k8sLabel = toPosix(relative(repoRoot, inventory.root));
  const kustomization = inventory.kustomization;
  if (!kustomization) {
    problems.push(`${k8sLabel}/kustomization.yaml: missing`);
    return;
  }
  const label = toPosix(relative(repoRoot, kustomization.file));
  const listed: string[] = (kustomization.doc.resources ?? []).map((r: unknown) =>
    String(r).replace(/^\.\//, ''),
  );
  const manifests = yamlFiles(inventory.root)
    .map((f) => toPosix(relative(inventory.root, f)))
    .filter((f) => !/(^|\/)kustomization\.ya?ml$/i.test(f) && !/\.example\.ya?ml$/i.test(f));
  for (const file of manifests) if (!listed.includes(file)) problems.push(`${label}: does not list ${file}`);
  for (const entry of listed) {
    if (/\.example\.ya?ml$/i.test(entry))
      problems.push(`${label}: lists ${entry}, which only shows the shape of Secrets`);
    else if (!existsSync(join(inventory.root, entry)))
      problems.push(`${label}: lists ${entry}, which does not exist`);
  }
  const duplicates = listed.filter((e, i) => listed.indexOf(e) !== i);
  if (duplicates.length) problems.push(`${label}: lists ${[...new Set(duplicates)].join(', ')} twice`);
}

/** Resolves a probe's or Service's port (number or container port name) to a number. */
function resolvePort(port: unknown, container: Doc): number | undefined {
  if (typeof port === 'number') return port;
  if (typeof port === 'string' && /^\d+$/.test(port)) return Number(port);
  const named = (container.ports ?? []).find((p: Doc) => p.name === port);
  return named?.containerPort;
}

function resolveEnv(
  where: string,
  container: Doc,
  inventory: Inventory,
  problems: string[],
): ResolvedEnvVar[] {
  const out: ResolvedEnvVar[] = [];
  const configMap = (name: string, optional: boolean) => {
    const found = inventory.configMaps.get(name);
    if (!found && !optional)
      problems.push(`${where}: ConfigMap ${name} is referenced but not among the manifests`);
    return found;
  };
  const secret = (name: string, optional: boolean) => {
    const found = inventory.secrets.get(name);
    if (!found && !optional)
      problems.push(`${where}: Secret ${name} is referenced but secrets.example.yaml does not show it`);
    return found;
  };
  for (const source of container.envFrom ?? []) {
    const prefix = source.prefix ?? '';
    if (source.configMapRef) {
      const found = configMap(source.configMapRef.name, source.configMapRef.optional === true);
      for (const [k, v] of Object.entries(found?.doc.data ?? {})) {
        out.push({
          name: prefix + k,
          key: configKeyOfEnv(prefix + k),
          source: 'configMap',
          value: String(v),
          from: source.configMapRef.name,
        });
      }
    } else if (source.secretRef) {
      const found = secret(source.secretRef.name, source.secretRef.optional === true);
      for (const [k, v] of Object.entries(found ? secretData(found.doc) : {})) {
        out.push({
          name: prefix + k,
          key: configKeyOfEnv(prefix + k),
          source: 'secret',
          value: v,
          from: source.secretRef.name,
        });
      }
    }
  }
  for (const entry of container.env ?? []) {
    const name = String(entry.name);
    const key = configKeyOfEnv(name);
    // Later definitions (env over envFrom) win, as in Kubernetes.
    const index = out.findIndex((e) => e.name === name);
    if (index >= 0) out.splice(index, 1);
    if (entry.valueFrom?.secretKeyRef) {
      const ref = entry.valueFrom.secretKeyRef;
      const found = secret(ref.name, ref.optional === true);
      const data = found ? secretData(found.doc) : {};
      if (found && !(ref.key in data))
        problems.push(
          `${where}: env ${name} reads key ${ref.key} of Secret ${ref.name}, which secrets.example.yaml does not show`,
        );
      out.push({ name, key, source: 'secret', value: data[ref.key], from: ref.name });
    } else if (entry.valueFrom?.configMapKeyRef) {
      const ref = entry.valueFrom.configMapKeyRef;
      const found = configMap(ref.name, ref.optional === true);
      const value = found?.doc.data?.[ref.key];
      if (found && value === undefined)
        problems.push(
          `${where}: env ${name} reads key ${ref.key} of ConfigMap ${ref.name}, which it does not hold`,
        );
      out.push({
        name,
        key,
        source: 'configMap',
        value: value === undefined ? undefined : String(value),
        from: ref.name,
      });
    } else if (entry.valueFrom) {
      out.push({ name, key, source: 'fieldRef' });
    } else {
      out.push({ name, key, source: 'literal', value: entry.value === undefined ? '' : String(entry.value) });
    }
  }
  return out;
}

/** Checks a `Service` exposes `port` and selects a workload among the manifests; returns that workload. */
function serviceBackend(
  inventory: Inventory,
  host: string,
  port: number,
): { problem?: string; workload?: LoadedDoc } {
  const name = host.split('.')[0];
  const service = inventory.services.find((s) => s.doc.metadata.name === name);
  if (!service) return { problem: `no Service '${name}' among the manifests` };
  if (!(service.doc.spec?.ports ?? []).some((p: Doc) => p.port === port)) {
    return { problem: `Service ${name} (${service.file}) does not expose port ${port}` };
  }
  const workload = inventory.docs.find(
    (d) =>
      ['Deployment', 'StatefulSet'].includes(d.doc.kind) &&
      labelsMatch(service.doc.spec?.selector, d.doc.spec?.template?.metadata?.labels),
  );
  if (!workload) return { problem: `Service ${name} (${service.file}) selects no Deployment or StatefulSet` };
  return { workload };
}

function containersOf(workload: Doc): Doc[] {
  return workload.spec?.template?.spec?.containers ?? [];
}

/** Runs every check for one app. `problems` is empty when the deployables agree. */
export function checkDeployables(expectations: DeployableExpectations): DeployablesReport {
  const root = expectations.repoRoot;
  const at = (p: string) => (isAbsolute(p) ? p : join(root, p));
  const app = expectations.app;
  const configDir = at(expectations.configDir ?? join('apps', app, 'config'));
  const port = expectations.port ?? readHttpPort(configDir);
  const image = expectations.image ?? `arbiter/${app}`;
  const readinessPath = expectations.readinessPath ?? '/health';
  const livenessPath = expectations.livenessPath ?? '/health/live';
  const minReplicas = expectations.minReplicas ?? 2;
  const cpuUtilization = expectations.cpuUtilization ?? 70;
  const environment = expectations.environment ?? 'Production';
  const problems: string[] = [];
  const report: DeployablesReport = { problems, port, image, services: [], requiredKeys: [], env: [] };

  // Known configuration keys and what the app cannot start without.
  const bindings = [...expectations.settings, HttpSettings].flatMap((type) => configKeysOf(type));
  const knownKeys = new Map<string, { key: string; container: boolean }>();
  for (const b of bindings)
    knownKeys.set(b.key.toLowerCase(), {
      key: b.key,
      container: b.kind !== 'string' && b.kind !== 'number' && b.kind !== 'boolean',
    });
  for (const key of [...PLATFORM_CONFIG_KEYS, ...(expectations.extraConfigKeys ?? [])])
    knownKeys.set(key.toLowerCase(), { key, container: false });
  const plainVariables = new Set([
    ...PLATFORM_ENVIRONMENT_VARIABLES,
    ...(expectations.extraEnvironmentVariables ?? []),
  ]);
  const isKnownKey = (key: string) => {
    const lower = key.toLowerCase();
    if (knownKeys.has(lower)) return true;
    // Children of arrays and dictionaries: `Key:0`, `TokenConfigs:SigningKeysByTenant:<tenant>`.
    const parent = lower.split(':').slice(0, -1).join(':');
    return knownKeys.get(parent)?.container === true;
  };
  const explicit = expectations.requiredKeys ?? [];
  for (const key of explicit) {
    if (!isKnownKey(key))
      problems.push(`required key ${key} is not a configuration key of ${app} (typo in the test?)`);
  }
  const required = [
    ...new Set([...explicit, ...deriveRequiredKeys(expectations.settings, configDir, environment)]),
  ];
  report.requiredKeys = required;

  // Docker
  const dockerfile = at(expectations.dockerfile ?? join('docker', `${app}.Dockerfile`));
  const { user } = checkDockerfile(
    dockerfile,
    toPosix(relative(root, dockerfile)),
    app,
    port,
    livenessPath,
    problems,
  );
  const dockerignore = at(expectations.dockerignore ?? '.dockerignore');
  checkDockerignore(dockerignore, toPosix(relative(root, dockerignore)), problems);

  // Kubernetes
  const inventory = loadInventory(at(expectations.k8sDir ?? 'k8s'), root, problems);
  checkKustomization(inventory, root, problems);

  const imagePattern = new RegExp(`^${image.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}(:|@|$)`);
  const deployments = inventory.docs.filter(
    (d) =>
      d.doc.kind === 'Deployment' &&
      containersOf(d.doc).some((c) => imagePattern.test(String(c.image ?? ''))),
  );
  if (deployments.length !== 1) {
    problems.push(`k8s: expected one Deployment running ${image}, found ${deployments.length}`);
    return report;
  }
  const { file, doc: deployment } = deployments[0];
  const name = deployment.metadata.name;
  const where = `${file}: Deployment ${name}`;
  report.deployment = name;
  const podSpec = deployment.spec?.template?.spec ?? {};
  const podLabels = deployment.spec?.template?.metadata?.labels ?? {};
  const container = containersOf(deployment).find((c) => imagePattern.test(String(c.image)))!;

  if (deployment.apiVersion !== 'apps/v1')
    problems.push(`${where}: apiVersion ${deployment.apiVersion}, expected apps/v1`);
  if (!labelsMatch(deployment.spec?.selector?.matchLabels, podLabels))
    problems.push(`${where}: selector.matchLabels do not match the pod template's labels`);
  if (typeof deployment.spec?.replicas !== 'number' || deployment.spec.replicas < minReplicas) {
    problems.push(`${where}: replicas ${deployment.spec?.replicas}, expected at least ${minReplicas}`);
  }
  const tag = /^[^@]+:([^:/@]+)$/.exec(String(container.image))?.[1];
  if (!tag) problems.push(`${where}: image ${container.image} has no tag (${image}:<tag>)`);
  else if (tag === 'latest')
    problems.push(`${where}: image ${container.image}: pin a release tag, not latest`);

  const containerPorts: number[] = (container.ports ?? []).map((p: Doc) => p.containerPort);
  if (!containerPorts.includes(port))
    problems.push(
      `${where}: containerPort ${containerPorts.join(', ') || '(none)'} does not include the app's port ${port}`,
    );

  const probes: [string, string[] | undefined][] = [
    ['readinessProbe', [readinessPath]],
    ['livenessProbe', [livenessPath]],
    ['startupProbe', undefined],
  ];
  for (const [probeName, paths] of probes) {
    const probe = container[probeName];
    if (!probe) {
      if (probeName !== 'startupProbe') problems.push(`${where}: no ${probeName}`);
      continue;
    }
    const http = probe.httpGet;
    if (!http) {
      problems.push(`${where}: ${probeName} is not an httpGet probe`);
      continue;
    }
    const allowed = paths ?? [livenessPath, readinessPath];
    if (!allowed.includes(http.path))
      problems.push(`${where}: ${probeName} path ${http.path}, expected ${allowed.join(' or ')}`);
    const probePort = resolvePort(http.port, container);
    if (probePort !== port) problems.push(`${where}: ${probeName} port ${http.port}, expected ${port}`);
  }

  for (const kind of ['requests', 'limits']) {
    for (const resource of ['cpu', 'memory']) {
      if (container.resources?.[kind]?.[resource] === undefined)
        problems.push(`${where}: no resources.${kind}.${resource}`);
    }
  }
  const nonRoot = container.securityContext?.runAsNonRoot ?? podSpec.securityContext?.runAsNonRoot;
  if (nonRoot !== true) problems.push(`${where}: securityContext.runAsNonRoot is not true`);
  const runAsUser = container.securityContext?.runAsUser ?? podSpec.securityContext?.runAsUser;
  if (runAsUser === 0) problems.push(`${where}: runAsUser 0 is root`);
  if (user && !/^\d+$/.test(user) && runAsUser === undefined) {
    problems.push(
      `${where}: the image's USER '${user}' is a name and no runAsUser is set: the kubelet cannot verify runAsNonRoot`,
    );
  }

  // Service
  const services = inventory.services.filter((s) => labelsMatch(s.doc.spec?.selector, podLabels));
  report.services = services.map((s) => s.doc.metadata.name);
  if (services.length === 0) problems.push(`${where}: no Service selects its pods`);
  for (const service of services) {
    const ports: Doc[] = service.doc.spec?.ports ?? [];
    const targets = ports.map((p) => resolvePort(p.targetPort ?? p.port, container));
    if (!targets.includes(port)) {
      problems.push(
        `${service.file}: Service ${service.doc.metadata.name} targets ${ports.map((p) => p.targetPort ?? p.port).join(', ')}, not the app's port ${port}`,
      );
    }
  }

  // HorizontalPodAutoscaler
  const hpas = inventory.docs.filter(
    (d) =>
      d.doc.kind === 'HorizontalPodAutoscaler' &&
      d.doc.spec?.scaleTargetRef?.kind === 'Deployment' &&
      d.doc.spec?.scaleTargetRef?.name === name,
  );
  if (hpas.length !== 1)
    problems.push(
      `${where}: expected one HorizontalPodAutoscaler targeting Deployment ${name}, found ${hpas.length}`,
    );
  for (const hpa of hpas) {
    const h = hpa.doc;
    const label = `${hpa.file}: HorizontalPodAutoscaler ${h.metadata.name}`;
    report.hpa = h.metadata.name;
    if (h.apiVersion !== 'autoscaling/v2')
      problems.push(`${label}: apiVersion ${h.apiVersion}, expected autoscaling/v2`);
    if (h.spec?.scaleTargetRef?.apiVersion !== 'apps/v1')
      problems.push(`${label}: scaleTargetRef.apiVersion is not apps/v1`);
    const cpu = (h.spec?.metrics ?? []).find((m: Doc) => m.type === 'Resource' && m.resource?.name === 'cpu');
    if (
      cpu?.resource?.target?.type !== 'Utilization' ||
      cpu?.resource?.target?.averageUtilization !== cpuUtilization
    ) {
      problems.push(`${label}: expected a cpu Utilization target of ${cpuUtilization}%`);
    }
    if (!(h.spec?.minReplicas >= minReplicas) || !(h.spec?.maxReplicas >= h.spec?.minReplicas)) {
      problems.push(
        `${label}: minReplicas ${h.spec?.minReplicas} / maxReplicas ${h.spec?.maxReplicas} (expected min ≥ ${minReplicas}, max ≥ min)`,
      );
    }
  }
  for (const pdb of inventory.docs.filter(
    (d) => d.doc.kind === 'PodDisruptionBudget' && d.doc.metadata.name === name,
  )) {
    if (!labelsMatch(pdb.doc.spec?.selector?.matchLabels, podLabels))
      problems.push(`${pdb.file}: PodDisruptionBudget ${name} does not select the Deployment's pods`);
  }

  // Environment
  const env = resolveEnv(where, container, inventory, problems);
  report.env = env;
  for (const variable of env) {
    if (plainVariables.has(variable.name)) continue;
    if (variable.name === variable.key) {
      problems.push(
        `${where}: env ${variable.name} (from ${variable.from ?? variable.source}) is neither a Section__Key configuration key nor a known variable`,
      );
    } else if (!isKnownKey(variable.key)) {
      problems.push(
        `${where}: env ${variable.name} (from ${variable.from ?? variable.source}) maps to ${variable.key}, which is not a configuration key of ${app}`,
      );
    }
  }
  const find = (key: string) => env.find((v) => v.key.toLowerCase() === key.toLowerCase());
  for (const key of required) {
    const variable = find(key);
    if (!variable) problems.push(`${where}: required key ${key} (${envNameOfKey(key)}) is not provided`);
    else if (variable.source !== 'secret' && variable.source !== 'fieldRef' && !variable.value?.trim()) {
      problems.push(
        `${where}: required key ${key} is provided empty (from ${variable.from ?? variable.source})`,
      );
    }
  }
  const nodeEnv = find('NODE_ENV');
  if (nodeEnv?.value !== undefined && nodeEnv.value !== 'production')
    problems.push(`${where}: NODE_ENV is '${nodeEnv.value}', expected production`);

  // Key files (`*PemPath`, `*KeyPath`) must be mounted, from a Secret (or ConfigMap) that holds them.
  const mounts: Doc[] = container.volumeMounts ?? [];
  const volumes: Doc[] = podSpec.volumes ?? [];
  for (const variable of env.filter(
    (v) => /(PemPath|KeyPath)$/i.test(v.key) && v.source !== 'secret' && v.value?.trim(),
  )) {
    const path = variable.value!.trim();
    const label = `${where}: ${variable.name}=${path}`;
    const mount = mounts.find((m) =>
      m.subPath ? path === m.mountPath : path.startsWith(String(m.mountPath).replace(/\/+$/, '') + '/'),
    );
    if (!mount) {
      problems.push(`${label} is under no volumeMount of the container`);
      continue;
    }
    const fileName = mount.subPath
      ? String(mount.subPath)
      : path.slice(String(mount.mountPath).replace(/\/+$/, '').length + 1);
    const volume = volumes.find((v) => v.name === mount.name);
    const source = volume?.secret ?? volume?.configMap;
    if (!source) {
      problems.push(`${label}: volume ${mount.name} is not a Secret (or ConfigMap) volume`);
      continue;
    }
    const items: Doc[] | undefined = source.items;
    const dataKey = items ? items.find((i) => i.path === fileName)?.key : fileName;
    if (dataKey === undefined) {
      problems.push(`${label}: volume ${mount.name} does not project a file named ${fileName}`);
      continue;
    }
    if (volume!.secret) {
      const secret = inventory.secrets.get(volume!.secret.secretName);
      if (!secret)
        problems.push(`${label}: Secret ${volume!.secret.secretName} is not shown in secrets.example.yaml`);
      else if (!(dataKey in secretData(secret.doc)))
        problems.push(`${label}: Secret ${volume!.secret.secretName} has no key ${dataKey}`);
    } else {
      const map = inventory.configMaps.get(volume!.configMap.name);
      if (!map || !(dataKey in (map.doc.data ?? {})))
        problems.push(`${label}: ConfigMap ${volume!.configMap.name} has no key ${dataKey}`);
    }
  }
  for (const mount of mounts) {
    if (!volumes.some((v) => v.name === mount.name))
      problems.push(`${where}: volumeMount ${mount.name} has no volume`);
  }
  for (const volume of volumes) {
    const secretName = volume.secret?.secretName;
    const mapName = volume.configMap?.name;
    const optional = (volume.secret ?? volume.configMap)?.optional === true;
    if (!secretName && !mapName) continue;
    const source = secretName ? inventory.secrets.get(secretName) : inventory.configMaps.get(mapName);
    const kind = secretName ? `Secret ${secretName}` : `ConfigMap ${mapName}`;
    if (!source) {
      if (!optional)
        problems.push(
          `${where}: volume ${volume.name}: ${kind} is ${secretName ? 'not shown in secrets.example.yaml' : 'not among the manifests'}`,
        );
      continue;
    }
    const data = secretName ? secretData(source.doc) : (source.doc.data ?? {});
    for (const item of (volume.secret ?? volume.configMap).items ?? []) {
      if (!(item.key in data))
        problems.push(`${where}: volume ${volume.name}: ${kind} has no key ${item.key}`);
    }
  }
  if (
    container.securityContext?.readOnlyRootFilesystem === true &&
    !mounts.some((m) => m.mountPath === '/tmp')
  ) {
    problems.push(`${where}: readOnlyRootFilesystem without a writable /tmp mount`);
  }

  // Dependencies: NATS (JetStream) behind ConnectionStrings:Cache, PostgreSQL behind the databases.
  const cache = find('ConnectionStrings:Cache');
  if (!cache?.value?.trim())
    problems.push(
      `${where}: ConnectionStrings:Cache (NATS) is not set: replicas would not see each other's events`,
    );
  else if (cache.source !== 'secret') {
    for (const server of cache.value
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean)) {
      const url = /^nats:\/\/(?:[^@/]*@)?([^:/]+)(?::(\d+))?\/?$/.exec(server);
      if (!url) {
        problems.push(`${where}: ConnectionStrings:Cache '${server}' is not nats://host:port`);
        continue;
      }
      const { problem, workload } = serviceBackend(inventory, url[1], Number(url[2] ?? 4222));
      if (problem) problems.push(`${where}: ConnectionStrings:Cache ${server}: ${problem}`);
      else {
        const c = containersOf(workload!.doc);
        const args = c.flatMap((x) => [...(x.command ?? []), ...(x.args ?? [])].map(String));
        if (!args.some((a) => a === '-js' || a === '--jetstream' || a === '-jetstream')) {
          problems.push(
            `${workload!.file}: ${workload!.doc.kind} ${workload!.doc.metadata.name} (NATS) does not run with -js (JetStream)`,
          );
        }
        if (
          workload!.doc.kind === 'StatefulSet' &&
          !(workload!.doc.spec?.volumeClaimTemplates ?? []).length
        ) {
          problems.push(
            `${workload!.file}: StatefulSet ${workload!.doc.metadata.name} (NATS) has no volumeClaimTemplates for the JetStream store`,
          );
        }
      }
    }
  }
  for (const variable of env.filter(
    (v) => /^ConnectionStrings:/i.test(v.key) && !/:Cache$/i.test(v.key) && isKnownKey(v.key),
  )) {
    const value = variable.value?.trim() ?? '';
    if (/^pglite:/i.test(value)) {
      problems.push(
        `${where}: ${variable.key} is an embedded PGlite database; replicas need PostgreSQL (postgres://…)`,
      );
      continue;
    }
    const url = /^postgres(?:ql)?:\/\/(?:[^@/]*@)?([^:/?]+)(?::(\d+))?\/([^?]+)/i.exec(value);
    if (!url) {
      problems.push(
        `${where}: ${variable.key} (${variable.source === 'secret' ? 'example in secrets.example.yaml' : variable.source}) is not postgres://user:password@host:port/database`,
      );
      continue;
    }
    const host = url[1];
    // In-cluster host: the Service must exist; anything with a dot may be a managed server.
    if (!host.includes('.')) {
      const { problem, workload } = serviceBackend(inventory, host, Number(url[2] ?? 5432));
      if (problem) problems.push(`${where}: ${variable.key} points at ${host}: ${problem}`);
      else {
        const postgres = workload!;
        const label = `${postgres.file}: ${postgres.doc.kind} ${postgres.doc.metadata.name} (PostgreSQL)`;
        if (postgres.doc.kind === 'StatefulSet' && !(postgres.doc.spec?.volumeClaimTemplates ?? []).length) {
          problems.push(`${label} has no volumeClaimTemplates`);
        }
        for (const c of containersOf(postgres.doc)) resolveEnv(label, c, inventory, problems);
        // The database and the application role must be created by the mounted init script.
        const initMaps = (postgres.doc.spec?.template?.spec?.volumes ?? [])
          .filter((v: Doc) => v.configMap)
          .map((v: Doc) => inventory.configMaps.get(v.configMap.name))
          .filter(Boolean) as LoadedDoc[];
        const scripts = initMaps.flatMap((m) => Object.values(m.doc.data ?? {}).map(String)).join('\n');
        const role = find('Database:ApplicationRole')?.value?.trim();
        const names: [string, string | undefined][] = [
          [`database ${url[3]}`, decodeURIComponent(url[3])],
          [`application role (Database:ApplicationRole) ${role}`, role],
        ];
        for (const [what, value] of names) {
          if (
            initMaps.length &&
            value &&
            !new RegExp(`(^|[^A-Za-z0-9_])${value}([^A-Za-z0-9_]|$)`).test(scripts)
          ) {
            problems.push(
              `${where}: ${variable.key}: the PostgreSQL init script does not create the ${what}`,
            );
          }
        }
      }
    }
  }
  return report;
}
