import {
  EnvelopeSelector,
  experienceEnvelope,
  hostedEnvelope,
  ServiceDefinition,
  startService,
  StartServiceOptions,
} from '@arbiter/platform';
import { join } from 'node:path';
import { ExperienceHotRouteDocumentation } from './experience';
import { IdentityModule } from './identity.module';
import { LicenseRuntimeRouteDocumentation } from './license';
import { IDENTITY_TAGS, IdentityErrorFamily } from './openapi';
import { BUILD_VERSION } from './version';

/**
 * Two envelope families share this host: the experience service's routes (`/api/<name>`, unversioned)
 * answer `{ error, code, timestamp }`; everything else (license, auth, CRUD under `/api/v{n}`, JWKS,
 * health, unknown routes) answers the hosted envelope `{ isSuccess, result, errors, timestamp }`.
 */
export const identityEnvelope: EnvelopeSelector = (path) =>
  /^\/api\/(?!v\d+(\/|$))/.test(path) ? experienceEnvelope : hostedEnvelope;

export const identityService: ServiceDefinition = {
  name: 'identity',
  title: 'Arbiter identity',
  description: 'License server, token authentication (JWT, refresh, JWKS, permissions), experience service.',
  version: BUILD_VERSION,
  configDir: join(__dirname, '..', 'config'),
  defaultPort: 3002,
  envelope: identityEnvelope,
  openApi: {
    errorFamily: IdentityErrorFamily,
    tags: IDENTITY_TAGS,
    // served in front of Nest, documented by controllers never routed: intercept and posttool
    // (ExperienceHotRoutes), validate and heartbeat (LicenseHotRoutes)
    unroutedControllers: [ExperienceHotRouteDocumentation, LicenseRuntimeRouteDocumentation],
  },
  createModule: (context) => IdentityModule.register(context),
};

export function startIdentity(options?: StartServiceOptions) {
  return startService(identityService, options);
}
