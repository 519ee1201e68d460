import type { AuthenticatedUser } from '@arbiter/platform';

/** Claim names in Arbiter access tokens (identity issues them, every service reads them). */
export const Claims = {
  Subject: 'sub',
  Name: 'name',
  TenantId: 'tenant_id',
  Roles: 'roles',
  /** The platform permission claim type (spec 1 leaves the name open): an array of permission keys. */
  Permissions: 'permissions',
  /** Refresh-token family (session) the access token belongs to. */
  SessionId: 'sid',
  TokenId: 'jti',
} as const;

function stringList(value: unknown): string[] {
  if (Array.isArray(value)) return value.filter((v): v is string => typeof v === 'string');
  if (typeof value === 'string' && value.trim()) return value.split(/[ ,]+/).filter(Boolean);
  return [];
}

/** Maps verified token claims to the platform's AuthenticatedUser. */
export function userFromClaims(claims: Record<string, unknown>): AuthenticatedUser {
  const tenant = claims[Claims.TenantId];
  return {
    id: String(claims.sub ?? ''),
    name: String(claims[Claims.Name] ?? claims.preferred_username ?? claims.sub ?? ''),
    tenantId: typeof tenant === 'string' && tenant ? tenant : undefined,
    roles: stringList(claims[Claims.Roles] ?? claims.role),
    permissions: stringList(claims[Claims.Permissions] ?? claims.permission),
    tokenId: typeof claims.jti === 'string' ? claims.jti : undefined,
    claims,
  };
}
