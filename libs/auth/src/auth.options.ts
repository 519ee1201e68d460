import type { EnvironmentName } from '@arbiter/platform';
import type { ApiKeyEntry } from './api-keys';
import type { PermissionDecisionPoint } from './policy-decision-point';
import type { RevocationSource } from './revocation-list';
import type { KeyResolver } from './token-verifier';

export const AUTH_OPTIONS = Symbol('arbiter:auth-options');

/** How one service authenticates and authorises requests. Each app builds this from its settings. */
export interface AuthOptions {
  /** Service name, for logs. */
  service: string;
  environment: EnvironmentName;
  /**
   * false: no authentication and no permission checks at all (control plane's
   * `ControlPlaneAuth:DisableAuthorization=true`); tenant and actor still come from headers.
   */
  enabled: boolean;
  /** Why authentication is off (logged loudly outside Development). */
  disabledReason?: string;
  /**
   * With authentication off: a request that presents a credential anyway (`Authorization`, `X-Api-Key`)
   * is refused with 401 instead of served anonymously — a credential this service cannot verify is
   * not silently ignored.
   */
  refuseCredentialsWhenDisabled?: boolean;
  /** Token verification; omit to accept API keys only. */
  tokens?: {
    resolver: KeyResolver;
    issuer: string;
    audience: string;
    /** Seconds, capped at 15. Default 5. */
    clockToleranceSeconds?: number;
  };
  /** Loaded at startup and every `revocationResyncSeconds`; bus events keep it current in between. */
  revocationSource?: RevocationSource;
  revocationSourceLabel?: string;
  revocationResyncSeconds?: number;
  /**
   * When set, the access token is read from this cookie first, then from `Authorization`. A
   * state-changing request (not GET, HEAD or OPTIONS) authenticated by the cookie must carry an `Origin`
   * (or `Referer`) of the service itself (its `Host`) or one of `trustedOrigins`: 403
   * `ORIGIN_NOT_ALLOWED` otherwise (cross-site request forgery).
   */
  cookieName?: string;
  /** Origins (`https://app.example.com`) besides the service's own allowed to send cookie-authenticated writes. */
  trustedOrigins?: string[];
  /** API keys (hashed) accepted as `X-Api-Key`, `Authorization: ApiKey <key>` or `Authorization: Bearer <key>`. */
  apiKeys?: ApiKeyEntry[];
  /** External policy decision point; the local role/permission check otherwise. */
  decisionPoint?: PermissionDecisionPoint;
  /**
   * `MultiTenantConfigs:RequireTenantClaimForAuthenticatedUser`: an authenticated caller whose
   * credentials carry no `tenant_id` is refused (403 `TENANT_CLAIM_REQUIRED`) instead of falling back
   * to the `x-tenant-id` header.
   */
  requireTenantClaim?: boolean;
  /** Paths (exact, or prefix when ending in `/`) that never need credentials. Health and docs are always public. */
  publicPaths?: string[];
}

export const ALWAYS_PUBLIC_PATHS = [
  '/health',
  '/health/',
  '/docs',
  '/docs/',
  '/docs-json',
  '/.well-known/jwks.json',
];
