export interface Json {
  status: number;
  body: any;
  headers: Headers;
}

export async function call(
  base: string,
  method: string,
  path: string,
  options: { token?: string; body?: unknown; headers?: Record<string, string> } = {},
): Promise<Json> {
  const headers: Record<string, string> = { ...(options.headers ?? {}) };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${base}${path}`, {
    method,
    headers,
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
  });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    // not JSON
  }
  return { status: res.status, body, headers: res.headers };
}

export const ADMIN = { userName: 'admin', password: 'admin-password-for-tests' };

export async function login(base: string, userName: string, password: string, tenant?: string) {
  const res = await call(base, 'POST', '/api/v1/auth/login', {
    body: { userName, password },
    headers: tenant ? { 'x-tenant-id': tenant } : {},
  });
  if (res.status !== 200)
    throw new Error(`login ${userName} failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.result as { AccessToken: string; RefreshToken: string; ExpiresIn: number };
}
