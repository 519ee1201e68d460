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

/**
 * Moves this process's clock ahead by `ms`, as if that much time had passed: `Date` only (it keeps
 * ticking in real time; timers, sockets and the database are untouched). Every service the test runs
 * in this process sees the same clock, so an access token issued before has expired everywhere, as
 * the spec's refresh wants. Called again while ahead, it moves further. Returns the function that puts
 * the clock back: tokens issued while it is ahead are not yet valid afterwards, so use them before.
 */
let clockFaked = false;

export function clockAhead(ms: number): () => void {
  const restore = () => {
    jest.useRealTimers();
    clockFaked = false;
  };
  if (clockFaked) {
    jest.setSystemTime(Date.now() + ms);
    return restore;
  }
  clockFaked = true;
  jest.useFakeTimers({
    now: Date.now() + ms,
    advanceTimers: true,
    doNotFake: [
      'hrtime',
      'nextTick',
      'performance',
      'queueMicrotask',
      'requestAnimationFrame',
      'cancelAnimationFrame',
      'requestIdleCallback',
      'cancelIdleCallback',
      'setImmediate',
      'clearImmediate',
      'setInterval',
      'clearInterval',
      'setTimeout',
      'clearTimeout',
    ],
  });
  return restore;
}

/** Past the default access-token lifetime (`TokenConfigs:ExpiryMinutes` 15) and the clock tolerance. */
export const PAST_ACCESS_TOKEN_EXPIRY_MS = (15 * 60 + 20) * 1000;
