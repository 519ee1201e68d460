import { ServiceDefinition, startService, StartServiceOptions, traceEnvelope } from '@arbiter/platform';
import { join } from 'node:path';
import { ControlPlaneModule } from './control-plane.module';
import { BUILD_VERSION } from './version';

export const controlPlaneService: ServiceDefinition = {
  name: 'control-plane',
  title: 'Arbiter control plane',
  description: 'Rule sets, versions, approval, activation, canary, shadow, dry-run, signed audit, quotas.',
  version: BUILD_VERSION,
  configDir: join(__dirname, '..', 'config'),
  defaultPort: 3000,
  // Chosen for the control plane (the spec leaves it open): the decisions family, { error, code, traceId }.
  envelope: () => traceEnvelope,
  createModule: (context) => ControlPlaneModule.register(context),
};

export function startControlPlane(options?: StartServiceOptions) {
  return startService(controlPlaneService, options);
}
