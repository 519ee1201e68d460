/**
 * The typed client of Arbiter's REST APIs: one SDK per service, generated from the service's OpenAPI
 * document (`docs/openapi/<service>.json`) by @hey-api/openapi-ts into `./generated/<service>`. Every
 * operation is a method named after its operationId, with typed path, query and body options, a typed
 * `data` for each success status and a typed `error` (the service's error family, with its `code` enum).
 * The routes users call most also have a short name: `controlPlane.execute` (POST
 * /api/v1/rule-engine/execute/{workflowName}) and `decisions.evaluate` (POST
 * /api/v1/decision-tables/{id}/evaluate).
 */
import { createClient as createControlPlaneClient } from './generated/control-plane/client';
import { ControlPlaneSdk } from './generated/control-plane/sdk.gen';
import { createClient as createDecisionsClient } from './generated/decisions/client';
import { DecisionsSdk } from './generated/decisions/sdk.gen';
import { createClient as createIdentityClient } from './generated/identity/client';
import { IdentitySdk } from './generated/identity/sdk.gen';

export { ControlPlaneSdk, DecisionsSdk, IdentitySdk };
/** The request and response types of each service (`ControlPlane.RuleSetsSaveData`, …). */
export type * as ControlPlane from './generated/control-plane/types.gen';
export type * as Decisions from './generated/decisions/types.gen';
export type * as Identity from './generated/identity/types.gen';

/** Where `npm start` serves the services on this machine. */
export const DEFAULT_URLS = {
  controlPlane: 'http://localhost:3000',
  decisions: 'http://localhost:3001',
  identity: 'http://localhost:3002',
} as const;

export interface ArbiterClientOptions {
  /** Base URL of the control plane (default `http://localhost:3000`). */
  controlPlaneUrl?: string;
  /** Base URL of the decisions service (default `http://localhost:3001`). */
  decisionsUrl?: string;
  /** Base URL of identity (default `http://localhost:3002`). */
  identityUrl?: string;
  /**
   * Access token (or API key where a service accepts one) sent as `Authorization: Bearer …` to every
   * operation that is not public; a function is asked before each request (token refresh).
   */
  token?: string | (() => string | undefined | Promise<string | undefined>);
  /** `x-tenant-id` of every request (the tenant when the services run without authorization). */
  tenant?: string;
  /** Headers added to every request. */
  headers?: Record<string, string>;
  /** The fetch implementation (default: the global one, looked up at each request). */
  fetch?: typeof fetch;
}

/** One typed SDK per service, each bound to its base URL and the credentials of the options. */
export interface ArbiterClient {
  controlPlane: ControlPlaneSdk;
  decisions: DecisionsSdk;
  identity: IdentitySdk;
}

export function createArbiterClient(options: ArbiterClientOptions = {}): ArbiterClient {
  const token = options.token;
  const config = (baseUrl: string) => ({
    baseUrl: baseUrl.replace(/\/+$/, ''),
    headers: { ...options.headers, ...(options.tenant ? { 'x-tenant-id': options.tenant } : {}) },
    ...(token !== undefined ? { auth: typeof token === 'function' ? () => token() : token } : {}),
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
  return {
    controlPlane: new ControlPlaneSdk({
      client: createControlPlaneClient(config(options.controlPlaneUrl ?? DEFAULT_URLS.controlPlane)),
    }),
    decisions: new DecisionsSdk({
      client: createDecisionsClient(config(options.decisionsUrl ?? DEFAULT_URLS.decisions)),
    }),
    identity: new IdentitySdk({
      client: createIdentityClient(config(options.identityUrl ?? DEFAULT_URLS.identity)),
    }),
  };
}
