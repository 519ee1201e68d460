import { hmacKeyId } from '@arbiter/auth';
import { HubConnection, HubConnectionBuilder, LogLevel } from '@microsoft/signalr';
import { SignJWT } from 'jose';
import { randomUUID } from 'node:crypto';

export interface Call {
  status: number;
  body: any;
  text: string;
  headers: Headers;
}

/** A tiny HTTP client for the API tests: JSON in, JSON (or text) out, tenant and actor headers. */
export function client(baseUrl: string, defaults: Record<string, string> = {}) {
  const call = async (
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<Call> => {
    const res = await fetch(`${baseUrl}${path}`, {
      method,
      headers: {
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...defaults,
        ...headers,
      },
      body: body !== undefined ? JSON.stringify(body) : undefined,
    });
    const text = await res.text();
    let parsed: any = text;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      /* not JSON */
    }
    return { status: res.status, body: parsed, text, headers: res.headers };
  };
  return {
    get: (path: string, headers?: Record<string, string>) => call('GET', path, undefined, headers),
    post: (path: string, body?: unknown, headers?: Record<string, string>) =>
      call('POST', path, body ?? {}, headers),
    call,
  };
}

export const rulesDoc = (n = 2) => ({
  rules: Array.from({ length: n }, (_, i) => ({
    id: `r${i + 1}`,
    name: `Rule ${i + 1}`,
    condition: `input.amount > ${i * 100}`,
    output: { tier: `T${i + 1}` },
  })),
});

export const A = '/api/v1/rule-engine/rulesets';
export const B = '/api/v1/control-plane';

/** Configuration of a control plane that verifies HS256 operator tokens signed with `secret`. */
export function operatorAuthOverrides(secret: string) {
  return {
    'ControlPlaneAuth:DisableAuthorization': false,
    'ControlPlaneAuth:SigningKey': secret,
    'ControlPlaneAuth:Issuer': 'arbiter-identity',
    'ControlPlaneAuth:Audience': 'arbiter',
  };
}

/** An operator token as identity issues it in HMAC mode (5 minutes, fresh jti). */
export function operatorToken(
  secret: string,
  name: string,
  roles: string[],
  tenantId = 'acme',
  permissions?: string[],
): Promise<string> {
  return new SignJWT({
    sub: name,
    name,
    tenant_id: tenantId,
    roles,
    jti: randomUUID(),
    ...(permissions ? { permissions } : {}),
  })
    .setProtectedHeader({ alg: 'HS256', kid: hmacKeyId(secret) })
    .setIssuer('arbiter-identity')
    .setAudience('arbiter')
    .setIssuedAt()
    .setExpirationTime('5m')
    .sign(new TextEncoder().encode(secret));
}

/** A `@microsoft/signalr` client on a push-hub path, for a tenant. */
export function connectHub(
  url: string,
  tenant: string,
  path = '/hubs/ruleset-changes',
): Promise<HubConnection> {
  const connection = new HubConnectionBuilder()
    .withUrl(`${url}${path}`, { headers: { 'x-tenant-id': tenant } })
    .configureLogging(LogLevel.None)
    .build();
  return connection.start().then(() => connection);
}

/** The next message of `target` on a hub connection (rejects after `timeoutMs`). */
export function nextEvent<T = any>(connection: HubConnection, target: string, timeoutMs = 5000): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no ${target} within ${timeoutMs} ms`)), timeoutMs);
    const handler = (payload: T) => {
      clearTimeout(timer);
      connection.off(target, handler);
      resolve(payload);
    };
    connection.on(target, handler);
  });
}
