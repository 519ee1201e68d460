// @ts-check
// `npm run build` of @arbiter/client (and `npm run generate`): one typed client per service, generated from
// the document the build of tools/openapi wrote to docs/openapi/<service>.json, into src/generated/<service>.
import { defineConfig } from '@hey-api/openapi-ts';
import { readFileSync } from 'node:fs';

/**
 * Each service's SDK class, and the friendly names of the calls users make most. Those are found by method
 * and path, not by operationId, so they do not depend on what the documentation calls the operation; each
 * is generated twice, under its operationId and under its friendly name.
 */
const SERVICES = {
  'control-plane': {
    container: 'ControlPlaneSdk',
    aliases: { 'post /api/v1/rule-engine/execute/{workflowName}': 'execute' },
  },
  decisions: {
    container: 'DecisionsSdk',
    aliases: { 'post /api/v1/decision-tables/{id}/evaluate': 'evaluate' },
  },
  identity: { container: 'IdentitySdk', aliases: {} },
};

/** @param {string} service */
function documentOf(service) {
  return new URL(`../../docs/openapi/${service}.json`, import.meta.url);
}

/** An alias whose route the document lacks is said out loud: the SDK then has no such method. */
function warnAboutMissingAliases() {
  for (const [service, { aliases }] of Object.entries(SERVICES)) {
    const document = JSON.parse(readFileSync(documentOf(service), 'utf8'));
    for (const [route, alias] of Object.entries(aliases)) {
      const [method, path] = route.split(' ');
      if (!document.paths?.[path]?.[method]) {
        process.stderr.write(
          `@arbiter/client: ${method.toUpperCase()} ${path} is not in docs/openapi/${service}.json: ${SERVICES[service].container} has no '${alias}'\n`,
        );
      }
    }
  }
}

warnAboutMissingAliases();

export default defineConfig(
  Object.entries(SERVICES).map(([service, { container, aliases }]) => ({
    input: { path: documentOf(service).pathname },
    output: {
      path: `src/generated/${service}`,
      // CommonJS package: relative imports without an extension (jest resolves them to the .ts sources too)
      importFileExtension: null,
    },
    logs: { level: 'warn' },
    plugins: [
      '@hey-api/typescript',
      '@hey-api/client-fetch',
      {
        name: '@hey-api/sdk',
        operations: {
          methods: 'instance',
          /** @param {{ id: string, method: string, path: string }} operation */
          strategy: (operation) => {
            /** @type {Record<string, string>} */
            const byRoute = aliases;
            const alias = byRoute[`${operation.method} ${operation.path}`];
            return alias
              ? [
                  [container, operation.id],
                  [container, alias],
                ]
              : [[container, operation.id]];
          },
        },
      },
    ],
  })),
);
