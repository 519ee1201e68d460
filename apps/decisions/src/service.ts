import {
  bindConfig,
  ServiceDefinition,
  startService,
  StartServiceOptions,
  traceEnvelope,
} from '@arbiter/platform';
import multipart from '@fastify/multipart';
import { join } from 'node:path';
import { EvaluateRouteDocumentation } from './decision-tables';
import { DecisionsModule } from './decisions.module';
import { DecisionsErrorFamily, DecisionsOpenApiTags } from './openapi';
import { DecisionTablesSettings } from './settings/decision-tables.settings';
import { BUILD_VERSION } from './version';

export const decisionsService: ServiceDefinition = {
  name: 'decisions',
  title: 'Arbiter decisions',
  description:
    'Decision tables (FEEL, hit policies, versions, import/export, analysis), event windows, scenarios.',
  version: BUILD_VERSION,
  configDir: join(__dirname, '..', 'config'),
  defaultPort: 3001,
  envelope: () => traceEnvelope,
  openApi: {
    errorFamily: DecisionsErrorFamily,
    tags: DecisionsOpenApiTags,
    // served in front of Nest (hot route): documented by a controller that is never routed
    unroutedControllers: [EvaluateRouteDocumentation],
  },
  createModule: (context) => DecisionsModule.register(context),
  // multipart uploads for `POST /api/v1/decision-tables/import?format=excel|dmn|csv`: one file of at
  // most `DecisionTables:MaxUploadBytes` (5 MiB by default)
  configureFastify: async (fastify, { configuration }) => {
    const { maxUploadBytes } = bindConfig(DecisionTablesSettings, configuration);
    await fastify.register(multipart, { limits: { fileSize: maxUploadBytes, files: 1, fields: 10 } });
  },
};

export function startDecisions(options?: StartServiceOptions) {
  return startService(decisionsService, options);
}
