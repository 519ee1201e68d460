import { ServiceDefinition, startService, StartServiceOptions, traceEnvelope } from '@arbiter/platform';
import { join } from 'node:path';
import { DecisionsModule } from './decisions.module';
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
  createModule: (context) => DecisionsModule.register(context),
};

export function startDecisions(options?: StartServiceOptions) {
  return startService(decisionsService, options);
}
