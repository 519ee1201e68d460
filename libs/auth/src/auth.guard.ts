import { CanActivate, ExecutionContext, Inject, Injectable, Optional } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AppError, RequestContext, type AuthenticatedUser } from '@arbiter/platform';
import { ApiKeyAuthenticator } from './api-keys';
import { ALWAYS_PUBLIC_PATHS, AUTH_OPTIONS, AuthOptions } from './auth.options';
import { userFromClaims } from './claims';
import { PERMISSIONS_KEY, POLICIES_KEY, PUBLIC_KEY } from './decorators';
import { LicenseCheck, QuotaCheck } from './hooks';
import { hasPolicy, PermissionRequirement, PolicyName, satisfies } from './permissions';
import { PermissionDecisionPoint } from './policy-decision-point';
import { AuthErrorCodes, TokenVerifier, unauthorized } from './token-verifier';

interface Credentials {
  kind: 'token' | 'apiKey';
  value: string;
  fromCookie?: boolean;
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** The origin (`scheme://host[:port]`) of an `Origin` or `Referer` header value, if it has one. */
function originOf(value: string | undefined): string | undefined {
  if (!value || value === 'null') return undefined;
  try {
    const url = new URL(value);
    return `${url.protocol}//${url.host}`.toLowerCase();
  } catch {
    return undefined;
  }
}

function header(req: { headers: Record<string, unknown> }, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : typeof value === 'string' ? value : undefined;
}

export function readCookie(cookieHeader: string | undefined, name: string): string | undefined {
  if (!cookieHeader) return undefined;
  for (const part of cookieHeader.split(';')) {
    const index = part.indexOf('=');
    if (index < 0) continue;
    if (part.slice(0, index).trim() === name) {
      const value = part.slice(index + 1).trim();
      try {
        return decodeURIComponent(value);
      } catch {
        return value;
      }
    }
  }
  return undefined;
}

const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*\.[A-Za-z0-9_-]*$/;

/**
 * The request pipeline after tenant resolution (the platform's middleware), in the spec's order:
 * authentication (cookie, then `Authorization: Bearer`, or an API key) → license check → quota →
 * permission validation → endpoint. One pipeline runs the steps in order so the order cannot drift: the global
 * guard calls it for Nest routes, and a hot route (`registerAuthorizedHotRoute`) calls it directly.
 */
/** What a route requires: its metadata as the guard reads it, or given by a hot route. */
export interface RouteRequirements {
  isPublic?: boolean;
  permissions?: PermissionRequirement[];
  policies?: PolicyName[];
}

/** The raw request as the pipeline needs it (Fastify's or Node's). */
export interface PipelineHttpRequest {
  method: string;
  url?: string;
  headers: Record<string, unknown>;
  user?: AuthenticatedUser;
}

@Injectable()
export class AuthPipeline {
  constructor(
    @Inject(AUTH_OPTIONS) private readonly options: AuthOptions,
    @Inject(LicenseCheck) private readonly license: LicenseCheck,
    @Inject(QuotaCheck) private readonly quota: QuotaCheck,
    @Optional() @Inject(TokenVerifier) private readonly verifier: TokenVerifier | null,
    @Inject(ApiKeyAuthenticator) private readonly apiKeys: ApiKeyAuthenticator,
    @Optional() @Inject(PermissionDecisionPoint) private readonly pdp: PermissionDecisionPoint | null,
  ) {}

  get enabled(): boolean {
    return this.options.enabled;
  }

  /** Whether requests must pass `authorize` (authentication on, or credentials refused while it is off). */
  get active(): boolean {
    return this.options.enabled || this.options.refuseCredentialsWhenDisabled === true;
  }

  /** Runs authentication → license → quota → permissions for one request; throws the 401/403. */
  async authorize(req: PipelineHttpRequest, requirements: RouteRequirements = {}): Promise<void> {
    if (!this.options.enabled) {
      if (
        this.options.refuseCredentialsWhenDisabled &&
        (header(req, 'authorization')?.trim() || header(req, 'x-api-key')?.trim())
      ) {
        throw unauthorized(
          'This service accepts anonymous requests only: the presented credential cannot be verified',
          AuthErrorCodes.InvalidToken,
        );
      }
      return;
    }
    const path = String(req.url ?? '/').split('?')[0];
    const isPublic = requirements.isPublic === true || this.isPublicPath(path);

    // 1. Authentication. On public routes bad credentials are ignored (refresh-token gets an expired one).
    let user: AuthenticatedUser | undefined;
    let credentials: Credentials | undefined;
    try {
      credentials = this.credentials(req);
      user = await this.authenticate(credentials);
    } catch (error) {
      if (!isPublic) throw error;
    }
    if (user && credentials?.fromCookie) this.assertSameOrigin(req);
    if (!user) {
      if (isPublic) return;
      throw unauthorized('Missing credentials', AuthErrorCodes.MissingCredentials);
    }
    RequestContext.setUser(user);
    req.user = user;
    if (isPublic) return;
    if (this.options.requireTenantClaim && !user.tenantId) {
      throw AppError.forbidden(
        'This service requires a tenant_id claim on authenticated requests',
        AuthErrorCodes.TenantClaimRequired,
      );
    }

    const pipelineRequest = { method: req.method, path, tenantId: RequestContext.tenantId(), user };
    // 2. License check, 3. quota (hooks the services bind).
    await this.license.check(pipelineRequest);
    await this.quota.check(pipelineRequest);

    // 4. Permission validation.
    const permissions = requirements.permissions ?? [];
    const policies = requirements.policies ?? [];
    if (permissions.length === 0 && policies.length === 0) return;
    const allowed = this.pdp
      ? await this.pdp.decide({
          user,
          tenantId: pipelineRequest.tenantId,
          permissions,
          policies,
          method: req.method,
          path,
        })
      : satisfies(user.permissions, permissions) && policies.every((p) => hasPolicy(user, p));
    if (!allowed) {
      const needed = [
        ...permissions.map((p) => `${p.key} (${p.mode})`),
        ...policies.map((p) => `policy ${p}`),
      ];
      throw AppError.forbidden(`Missing permission: ${needed.join(', ')}`);
    }
  }

  /** Cookie-authenticated writes only from the service's own origin or a trusted one (CSRF). */
  private assertSameOrigin(req: PipelineHttpRequest): void {
    if (SAFE_METHODS.has(String(req.method).toUpperCase())) return;
    const origin = originOf(header(req, 'origin')) ?? originOf(header(req, 'referer'));
    const host = header(req, 'host')?.toLowerCase();
    const own = !!origin && !!host && new URL(origin).host === host;
    const trusted = (this.options.trustedOrigins ?? []).some((t) => originOf(t) === origin);
    if (!own && !trusted) {
      throw AppError.forbidden(
        'A cookie-authenticated write must come from this service or a trusted origin',
        AuthErrorCodes.OriginNotAllowed,
      );
    }
  }

  private isPublicPath(path: string): boolean {
    const list = [...ALWAYS_PUBLIC_PATHS, ...(this.options.publicPaths ?? [])];
    return list.some((p) => (p.endsWith('/') ? path.startsWith(p) : path === p));
  }

  private credentials(req: { headers: Record<string, unknown> }): Credentials | undefined {
    if (this.options.cookieName) {
      const cookie = readCookie(header(req, 'cookie'), this.options.cookieName);
      if (cookie) return { kind: 'token', value: cookie, fromCookie: true };
    }
    const authorization = header(req, 'authorization')?.trim();
    if (authorization) {
      const [scheme, ...rest] = authorization.split(/\s+/);
      const value = rest.join(' ');
      if (/^bearer$/i.test(scheme) && value) {
        // Spec 2: API keys are also presented as bearer credentials; a JWT has three dot-separated parts.
        return JWT_SHAPE.test(value) || !this.apiKeys.enabled
          ? { kind: 'token', value }
          : { kind: 'apiKey', value };
      }
      if (/^apikey$/i.test(scheme) && value) return { kind: 'apiKey', value };
      throw unauthorized('Unsupported authorization scheme', AuthErrorCodes.MissingCredentials);
    }
    const apiKey = header(req, 'x-api-key')?.trim();
    if (apiKey) return { kind: 'apiKey', value: apiKey };
    return undefined;
  }

  private async authenticate(credentials: Credentials | undefined): Promise<AuthenticatedUser | undefined> {
    if (!credentials) return undefined;
    if (credentials.kind === 'apiKey') {
      const user = this.apiKeys.enabled ? this.apiKeys.authenticate(credentials.value) : undefined;
      if (!user) throw unauthorized('Invalid API key', AuthErrorCodes.InvalidApiKey);
      return user;
    }
    if (!this.verifier) throw unauthorized('Bearer tokens are not accepted by this service');
    const claims = await this.verifier.verify(credentials.value);
    return userFromClaims(claims);
  }
}

/** The global guard: reads the route's metadata and runs the pipeline. */
@Injectable()
export class AuthGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    @Inject(AuthPipeline) private readonly pipeline: AuthPipeline,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (context.getType() !== 'http') return true;
    if (!this.pipeline.active) return true;
    const targets = [context.getHandler(), context.getClass()];
    await this.pipeline.authorize(context.switchToHttp().getRequest(), {
      isPublic: this.reflector.getAllAndOverride<boolean>(PUBLIC_KEY, targets) === true,
      permissions: [
        ...((Reflect.getMetadata(PERMISSIONS_KEY, context.getClass()) as PermissionRequirement[]) ?? []),
        ...((Reflect.getMetadata(PERMISSIONS_KEY, context.getHandler()) as PermissionRequirement[]) ?? []),
      ],
      policies: [
        ...((Reflect.getMetadata(POLICIES_KEY, context.getClass()) as PolicyName[]) ?? []),
        ...((Reflect.getMetadata(POLICIES_KEY, context.getHandler()) as PolicyName[]) ?? []),
      ],
    });
    return true;
  }
}
