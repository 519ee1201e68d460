import type { AuthenticatedUser } from '@arbiter/platform';
import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * The tenant name of a service key (`Authentication:ApiKeys:*`): a key that acts for the tenant the
 * request names in `x-tenant-id` (service-to-service calls, e.g. the control plane fetching the stored
 * decision tables of a tenant's flow). Grant it only to services.
 */
export const SERVICE_KEY_TENANT = '*';

/** A configured API key: only its SHA-256 hash is known, bound to one tenant (or `*`: a service key). */
export interface ApiKeyEntry {
  tenantId: string;
  /** `sha256:<64 hex>` (or bare 64 hex). */
  hash: string;
  name?: string;
  roles?: string[];
  permissions?: string[];
}

export function hashApiKey(key: string): string {
  return `sha256:${createHash('sha256').update(key, 'utf8').digest('hex')}`;
}

function digestOf(hash: string): Buffer | undefined {
  const hex = hash
    .trim()
    .toLowerCase()
    .replace(/^sha256:/, '');
  return /^[0-9a-f]{64}$/.test(hex) ? Buffer.from(hex, 'hex') : undefined;
}

/**
 * Parses `<tenant> → "sha256:<hex>[,sha256:<hex>…]"` (a configuration dictionary) into entries.
 * Throws naming the tenant when a value is not a SHA-256 hash.
 */
export function parseApiKeyConfig(
  byTenant: Record<string, string | string[]>,
  section: string,
): ApiKeyEntry[] {
  const entries: ApiKeyEntry[] = [];
  for (const [tenantId, raw] of Object.entries(byTenant)) {
    const values = (Array.isArray(raw) ? raw : String(raw).split(',')).map((v) => v.trim()).filter(Boolean);
    for (const value of values) {
      if (!digestOf(value)) throw new Error(`${section}:${tenantId} must hold sha256:<64 hex> hashes`);
      entries.push({ tenantId, hash: value });
    }
  }
  return entries;
}

/**
 * Parses service keys given under one key of their own (`Authentication:ServiceApiKeys` =
 * `sha256:<hex>[,sha256:<hex>…]`): the same entries as `<section>:*`, under a name an environment
 * variable can carry (`Authentication__ServiceApiKeys`; shells drop a `*` in a variable name). Throws
 * naming `key` when a value is not a SHA-256 hash.
 */
export function parseServiceApiKeys(value: string | string[] | undefined, key: string): ApiKeyEntry[] {
  const values = (Array.isArray(value) ? value : String(value ?? '').split(','))
    .map((v) => v.trim())
    .filter(Boolean);
  return values.map((hash) => {
    if (!digestOf(hash)) throw new Error(`${key} must hold sha256:<64 hex> hashes`);
    return { tenantId: SERVICE_KEY_TENANT, hash };
  });
}

/** Looks a presented key up by hash, in constant time per entry. */
export class ApiKeyAuthenticator {
  private readonly entries: { entry: ApiKeyEntry; digest: Buffer }[];

  constructor(entries: ApiKeyEntry[]) {
    this.entries = entries.flatMap((entry) => {
      const digest = digestOf(entry.hash);
      return digest ? [{ entry, digest }] : [];
    });
  }

  get enabled(): boolean {
    return this.entries.length > 0;
  }

  authenticate(key: string): AuthenticatedUser | undefined {
    const presented = createHash('sha256').update(key, 'utf8').digest();
    let found: ApiKeyEntry | undefined;
    for (const { entry, digest } of this.entries) {
      if (timingSafeEqual(presented, digest)) found = entry;
    }
    if (!found) return undefined;
    const id = `apikey:${presented.toString('hex').slice(0, 12)}`;
    if (found.tenantId === SERVICE_KEY_TENANT)
      // no tenant claim: the request's x-tenant-id names the tenant it acts for
      return {
        id,
        name: found.name ?? id,
        roles: found.roles ?? ['ApiKey', 'Service'],
        permissions: found.permissions ?? [],
        claims: { auth_method: 'service_key' },
      };
    return {
      id,
      name: found.name ?? id,
      tenantId: found.tenantId,
      roles: found.roles ?? ['ApiKey'],
      permissions: found.permissions ?? [],
      claims: { auth_method: 'api_key', tenant_id: found.tenantId },
    };
  }
}
