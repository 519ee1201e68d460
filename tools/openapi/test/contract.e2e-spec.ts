import { describeService, registeredRoutes } from '@arbiter/platform';
import { ServiceUnderTest, startServiceForTest } from '@arbiter/testing';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import {
  baselinePath,
  documentPath,
  findBreakingChanges,
  formatProblem,
  lintDocument,
  operationsOf,
  readJson,
  readRecord,
  RECORD_PATH,
  recordEntryFor,
  REDOCLY_CONFIG_PATH,
  REPO_ROOT,
  SERVICE_NAMES,
  serializeDocument,
  ServiceName,
  unrecordedChanges,
} from '../src';
import { SERVICE_DEFINITIONS } from '../src/services';
import { firstDifference } from './first-difference';

/** The configuration key of each service's database (what its own API tests override too). */
const DATABASE_KEYS: Record<ServiceName, string> = {
  'control-plane': 'ConnectionStrings:RuleControlPlaneDb',
  decisions: 'ConnectionStrings:DecisionTablesDb',
  identity: 'ConnectionStrings:LicenseDb',
};

/**
 * Routes that are not operations of the API: the document's own routes (`/docs`, `/docs-json`, the UI's
 * files) and the CORS preflight answer `@fastify/cors` registers for every path (`OPTIONS *`).
 */
function isApiRoute(route: { method: string; path: string }): boolean {
  return !route.path.startsWith('/docs') && !(route.method === 'OPTIONS' && route.path === '*');
}

const productVersion: string = readJson(join(REPO_ROOT, 'package.json')).version;
const rel = (path: string) => relative(REPO_ROOT, path);

describe.each(SERVICE_NAMES)('the OpenAPI contract of %s', (service) => {
  let sut: ServiceUnderTest;
  let served: any;
  let built: any;

  beforeAll(async () => {
    sut = await startServiceForTest(SERVICE_DEFINITIONS[service], DATABASE_KEYS[service]);
    const res = await fetch(`${sut.url}/docs-json`);
    expect(res.status).toBe(200);
    served = await res.json();
    // as JSON, the way the build writes it and the service serves it
    built = JSON.parse(serializeDocument(await describeService(SERVICE_DEFINITIONS[service])));
  }, 120_000);

  afterAll(() => sut?.stop());

  it('serves at /docs-json the document describeService builds offline', () => {
    const difference = firstDifference(served, built);
    if (difference) {
      throw new Error(
        `/docs-json of ${service} differs from describeService(${service}) at ${difference}: the document must not depend on the running service`,
      );
    }
  });

  it(`is committed as docs/openapi/${service}.json, as the build writes it`, () => {
    const path = documentPath(service);
    let committed: string;
    try {
      committed = readFileSync(path, 'utf8');
    } catch {
      throw new Error(`${rel(path)} is missing: run \`npm run build\` and commit docs/openapi`);
    }
    if (committed !== serializeDocument(built)) {
      const difference = firstDifference(JSON.parse(committed), built) ?? '(formatting only)';
      throw new Error(
        `${rel(path)} is stale (first difference at ${difference}): run \`npm run build\` and commit docs/openapi`,
      );
    }
  });

  it('lists every route the service serves as an operation, and no operation it does not serve', () => {
    const routes = new Set(
      registeredRoutes(sut.service.app)
        .filter(isApiRoute)
        .map((r) => `${r.method} ${r.path}`),
    );
    const operations = new Set(operationsOf(served));
    const undocumented = [...routes].filter((r) => !operations.has(r)).sort();
    const unserved = [...operations].filter((o) => !routes.has(o)).sort();
    const problems = [
      ...(undocumented.length
        ? [`routes ${service} serves that its document does not list:\n    ${undocumented.join('\n    ')}`]
        : []),
      ...(unserved.length
        ? [`operations in the document of ${service} that no route serves:\n    ${unserved.join('\n    ')}`]
        : []),
    ];
    if (problems.length) throw new Error(problems.join('\n  '));
    expect(routes.size).toBeGreaterThan(0);
  });

  it('carries the product version (the root package.json version) as info.version', () => {
    expect({ service, version: served.info.version }).toEqual({ service, version: productVersion });
  });

  it('has no breaking change against the release baseline that is not recorded', () => {
    const baseline = readJson(baselinePath(service));
    const record = readRecord(RECORD_PATH);
    const unrecorded = unrecordedChanges(
      service,
      productVersion,
      findBreakingChanges(baseline, built),
      record,
    );
    if (unrecorded.length) {
      throw new Error(
        `${unrecorded.length} breaking change(s) of ${service} against ${rel(baselinePath(service))} are not recorded ` +
          `in ${rel(RECORD_PATH)} (see docs/openapi/README.md): make the change compatible, or add:\n` +
          unrecorded
            .map((change) => JSON.stringify(recordEntryFor(service, productVersion, change)))
            .join(',\n'),
      );
    }
  });

  it('passes Redocly lint with the recommended rules (no error)', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'openapi-lint-'));
    try {
      const file = join(directory, `${service}.json`);
      writeFileSync(file, serializeDocument(built));
      const problems = await lintDocument(file, REDOCLY_CONFIG_PATH);
      const errors = problems.filter((p) => p.severity === 'error');
      const warnings = problems.filter((p) => p.severity === 'warn');
      if (errors.length) {
        throw new Error(
          `redocly lint (${rel(REDOCLY_CONFIG_PATH)}) found ${errors.length} error(s) and ${warnings.length} warning(s) in the document of ${service}:\n  ` +
            [...errors, ...warnings].map(formatProblem).join('\n  '),
        );
      }
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  }, 60_000);
});
