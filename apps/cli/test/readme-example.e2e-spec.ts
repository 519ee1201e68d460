import * as arbiterClient from '@arbiter/client';
import { createTestDatabase, TestDatabase } from '@arbiter/testing';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import vm from 'node:vm';
import ts from 'typescript';
import { RunningPlatform, startPlatform } from '../src/commands/start';

const REPO_ROOT = join(__dirname, '..', '..', '..');
const MARKER = '<!-- client-example';

/** The TypeScript block after the README's `<!-- client-example … -->` marker. */
function readmeExample(): string {
  const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
  const at = readme.indexOf(MARKER);
  if (at < 0) throw new Error(`README.md has no '${MARKER} … -->' marker before the client example`);
  const block = /```ts\n([\s\S]*?)\n```/.exec(readme.slice(at));
  if (!block) throw new Error('README.md: no ```ts block after the client example marker');
  return block[1];
}

/** The routes behind the client's short names (libs/client/openapi-ts.config.mjs finds them by route). */
const SHORT_NAMES = [
  {
    name: 'controlPlane.execute',
    document: 'control-plane',
    method: 'post',
    path: '/api/v1/rule-engine/execute/{workflowName}',
  },
  {
    name: 'decisions.evaluate',
    document: 'decisions',
    method: 'post',
    path: '/api/v1/decision-tables/{id}/evaluate',
  },
];

/** Which short names the client cannot have because the document lacks their route. */
function undocumentedShortNames(): string[] {
  return SHORT_NAMES.filter((s) => {
    const document = JSON.parse(
      readFileSync(join(REPO_ROOT, 'docs', 'openapi', `${s.document}.json`), 'utf8'),
    );
    return !document.paths?.[s.path]?.[s.method];
  }).map(
    (s) =>
      `${s.method.toUpperCase()} ${s.path} is not in docs/openapi/${s.document}.json, so ${s.name} does not exist`,
  );
}

/**
 * Type-checks the example as a user's ES module (top-level await) against the client's sources, with the
 * repository's compiler options; returns the diagnostics as text (empty when it compiles).
 */
function typeCheck(source: string): string {
  const base = ts.getParsedCommandLineOfConfigFile(
    join(REPO_ROOT, 'tsconfig.base.json'),
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (d) => {
        throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n'));
      },
    },
  )!.options;
  const options: ts.CompilerOptions = {
    ...base,
    noEmit: true,
    // the generated fetch client names BodyInit (libs/client builds with the DOM library too)
    lib: ['lib.es2023.d.ts', 'lib.dom.d.ts'],
    types: ['node'],
    paths: { '@arbiter/client': [join(REPO_ROOT, 'libs', 'client', 'src', 'index.ts')] },
  };
  const file = join(REPO_ROOT, 'apps', 'cli', 'readme-example.mts');
  const host = ts.createCompilerHost(options);
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (name, version, ...rest) =>
    name === file ? ts.createSourceFile(name, source, version) : getSourceFile(name, version, ...rest);
  const fileExists = host.fileExists.bind(host);
  host.fileExists = (name) => name === file || fileExists(name);
  const program = ts.createProgram([file], options, host);
  const diagnostics = ts.getPreEmitDiagnostics(program);
  return diagnostics.length
    ? ts.formatDiagnostics(diagnostics, {
        getCanonicalFileName: (f) => f,
        getCurrentDirectory: () => REPO_ROOT,
        getNewLine: () => '\n',
      })
    : '';
}

/**
 * Runs the example as an ES module (transpiled, top-level await kept) with `@arbiter/client` linked to the
 * library, `process.env` given, and what it prints with `console.log` returned.
 */
async function run(source: string, env: Record<string, string>): Promise<unknown[][]> {
  const printed: unknown[][] = [];
  const { outputText } = ts.transpileModule(source, {
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
  });
  const context = vm.createContext({
    console: { log: (...args: unknown[]) => printed.push(args) },
    process: { env },
  });
  const module = new vm.SourceTextModule(outputText, { context, identifier: 'README.md#client-example' });
  await module.link((specifier) => {
    if (specifier !== '@arbiter/client') throw new Error(`the example imports ${specifier}`);
    const exports = arbiterClient as Record<string, unknown>;
    return new vm.SyntheticModule(
      Object.keys(exports),
      function () {
        for (const name of Object.keys(exports)) this.setExport(name, exports[name]);
      },
      { context },
    );
  });
  await module.evaluate();
  return printed;
}

describe("the README's client example, against `npm start`", () => {
  let platform: RunningPlatform;
  const databases: TestDatabase[] = [];
  let urls: Record<string, string>;

  beforeAll(async () => {
    const db = async () => {
      const d = await createTestDatabase();
      databases.push(d);
      return d.url;
    };
    // `npm start`'s code path and environment (Development), on fresh databases and free ports
    platform = await startPlatform({
      env: {
        ConnectionStrings__RuleControlPlaneDb: await db(),
        ConnectionStrings__DecisionTablesDb: await db(),
        ConnectionStrings__LicenseDb: await db(),
        ...(process.env.TEST_NATS_URL ? { ConnectionStrings__Cache: process.env.TEST_NATS_URL } : {}),
      },
      host: '127.0.0.1',
      ports: { 'control-plane': 0, decisions: 0, identity: 0 },
    });
    urls = Object.fromEntries(platform.services.map((s) => [s.name, s.url]));
  }, 120_000);

  afterAll(async () => {
    await platform?.stop();
    for (const d of databases) await d.drop();
  });

  it('type-checks against the generated client', () => {
    const diagnostics = typeCheck(readmeExample());
    if (diagnostics) {
      const missing = undocumentedShortNames();
      throw new Error(
        `the README's client example does not compile against @arbiter/client (regenerated from docs/openapi by \`npm run build\`):\n${diagnostics}` +
          (missing.length ? `\n${missing.join('\n')}` : ''),
      );
    }
  }, 60_000);

  it('executes a rule set and evaluates a decision table, printing both results', async () => {
    // what the example expects to exist, made through the REST API
    const post = async (url: string, body: unknown) => {
      const res = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-tenant-id': 'acme' },
        body: JSON.stringify(body),
      });
      const answer: any = await res.json();
      if (!res.ok) throw new Error(`POST ${url} answered ${res.status}: ${JSON.stringify(answer)}`);
      return answer;
    };
    const saved = await post(`${urls['control-plane']}/api/v1/rule-engine/rulesets/pricing`, {
      ruleSet: {
        rules: [{ id: 'big', name: 'Big order', condition: 'amount > 1000', output: { discount: 0.1 } }],
      },
      activateAfterSave: true,
    });
    expect(saved).toMatchObject({ version: 1, status: 'active' });
    const table = await post(`${urls.decisions}/api/v1/decision-tables`, {
      name: 'discount',
      hitPolicy: 'First',
      inputColumns: [
        { name: 'amount', type: 'number', required: true },
        { name: 'tier', type: 'string' },
      ],
      outputColumns: [{ name: 'discount', type: 'number' }],
      rows: [
        { inputConditions: { amount: '>= 1000', tier: '"gold"' }, outputs: { discount: 0.15 } },
        { inputConditions: { amount: '-', tier: '-' }, outputs: { discount: 0 } },
      ],
    });
    const tableId: string = table.id;

    // the example calls npm start's URLs (localhost:3000, 3001, 3002); this platform listens on free ports
    const ports: Record<string, string> = {
      'http://localhost:3000': urls['control-plane'],
      'http://localhost:3001': urls.decisions,
      'http://localhost:3002': urls.identity,
    };
    const realFetch = globalThis.fetch;
    globalThis.fetch = ((input: Request | string | URL, init?: RequestInit) => {
      const request = new Request(input, init);
      const origin = new URL(request.url).origin;
      if (!ports[origin]) throw new Error(`the example called ${request.url}, not a service of npm start`);
      return realFetch(new Request(request.url.replace(origin, ports[origin]), request));
    }) as typeof fetch;
    let printed: unknown[][];
    try {
      printed = await run(readmeExample(), { TABLE_ID: tableId });
    } finally {
      globalThis.fetch = realFetch;
    }
    expect(printed).toEqual([[{ discount: 0.1 }, { discount: 0.15 }]]);
  }, 60_000);
});
