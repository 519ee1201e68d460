import { ServiceDefinition, startService, StartServiceOptions, traceEnvelope } from '@arbiter/platform';
import { join } from 'node:path';
import { ControlPlaneModule } from './control-plane.module';
import { ExecuteRouteDocumentation } from './execution';
import { ControlPlaneErrorFamily, RuntimeApiTags } from './openapi';
import { BUILD_VERSION } from './version';

export const controlPlaneService: ServiceDefinition = {
  name: 'control-plane',
  title: 'Arbiter control plane',
  description: 'Rule sets, versions, approval, activation, canary, shadow, dry-run, signed audit, quotas.',
  version: BUILD_VERSION,
  configDir: join(__dirname, '..', 'config'),
  defaultPort: 3000,
  // Chosen for the control plane (the spec leaves it open): the decisions service's envelope, { error, code, traceId }.
  envelope: () => traceEnvelope,
  openApi: {
    errorFamily: ControlPlaneErrorFamily,
    // the execute route is served in front of Nest (ExecuteHotRoute): documented by a controller never routed
    unroutedControllers: [ExecuteRouteDocumentation],
    tags: [
      ...RuntimeApiTags,
      {
        name: 'rule sets (rule-engine)',
        description:
          'Rule sets under `/api/v1/rule-engine/rulesets`: save (rules form or any shape), versions, ' +
          'activation, validation, dry-run, export, diff, audit.',
      },
      {
        name: 'rule sets (control-plane)',
        description:
          'Rule sets under `/api/v1/control-plane`: save, versions, export, dry-run, the maker-checker approval flow ' +
          '(submit, approve, reject, with the `/approvals/…` aliases), activation, cache invalidation and ' +
          'metrics, the file-backed rule store.',
      },
      { name: 'rule flow', description: 'The flow-graph contract a flow designer authors against.' },
      { name: 'tenants', description: 'The tenants that have rule sets (cross-tenant, administrators).' },
      {
        name: 'audit',
        description: "The tenant's RSA-signed, hash-chained audit of operator actions, and its verification.",
      },
      { name: 'operator', description: 'The current operator, as authenticated and authorized.' },
      {
        name: 'runtime info',
        description:
          'Public runtime info (`ControlPlaneRuntimeInfo:*`) for a dashboard to bootstrap its license state.',
      },
    ],
  },
  createModule: (context) => ControlPlaneModule.register(context),
  configureFastify: (fastify) => {
    // The SignalR client posts its negotiate request with an empty text/plain body: drop the content
    // type of those (body-less) requests so they reach the route instead of a 415.
    fastify.addHook('onRequest', (request: any, _reply: any, done: () => void) => {
      if (request.method === 'POST' && /^\/hubs\/[^/]+\/negotiate(\?|$)/.test(request.url)) {
        if (!Number(request.headers['content-length'] ?? 0)) delete request.headers['content-type'];
      }
      done();
    });
  },
};

export function startControlPlane(options?: StartServiceOptions) {
  return startService(controlPlaneService, options);
}
