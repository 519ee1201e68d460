/**
 * The console's only way to the platform: the services' public HTTP APIs, reached through the console
 * server's reverse proxy (`/svc/<service>/…`, one origin). Holds the operator's session (access and
 * refresh token), refreshes it silently and retries a request once after a refresh.
 */
export type Service = 'controlPlane' | 'decisions' | 'identity';

export interface ConsoleConfig {
  prefixes: Record<Service, string>;
  authenticated: { controlPlane: boolean; decisions: boolean };
}

export interface Session {
  accessToken: string;
  refreshToken: string;
  /** epoch ms at which the access token expires */
  expiresAt: number;
  /** epoch ms at which it was issued */
  issuedAt: number;
  userName: string;
  tenantId: string;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string | undefined,
    message: string,
    readonly body: unknown,
  ) {
    super(message);
  }
}

const STORAGE_KEY = 'arbiter.console.session';
let config: ConsoleConfig | null = null;
let session: Session | null = null;
let refreshing: Promise<boolean> | null = null;
let refreshTimer: ReturnType<typeof setTimeout> | undefined;
const listeners = new Set<(s: Session | null) => void>();

export async function loadConfig(): Promise<ConsoleConfig> {
  if (config) return config;
  const response = await fetch('/console-config.json');
  config = (await response.json()) as ConsoleConfig;
  return config;
}

export function consoleConfig(): ConsoleConfig {
  if (!config) throw new Error('console configuration not loaded');
  return config;
}

function decodeClaims(token: string): Record<string, unknown> {
  try {
    const payload = token.split('.')[1].replace(/-/g, '+').replace(/_/g, '/');
    return JSON.parse(decodeURIComponent(escape(atob(payload)))) as Record<string, unknown>;
  } catch {
    return {};
  }
}

interface TokenAnswer {
  AccessToken: string;
  RefreshToken: string;
  ExpiresIn: number;
}

function sessionFrom(answer: TokenAnswer, fallbackUser: string): Session {
  const claims = decodeClaims(answer.AccessToken);
  const exp = typeof claims.exp === 'number' ? claims.exp * 1000 : Date.now() + answer.ExpiresIn * 1000;
  return {
    accessToken: answer.AccessToken,
    refreshToken: answer.RefreshToken,
    expiresAt: exp,
    issuedAt: typeof claims.iat === 'number' ? claims.iat * 1000 : Date.now(),
    userName: String(claims.name ?? claims.preferred_username ?? claims.unique_name ?? fallbackUser),
    tenantId: String(claims.tenant_id ?? 'default'),
  };
}

function setSession(next: Session | null): void {
  session = next;
  if (next) sessionStorage.setItem(STORAGE_KEY, JSON.stringify(next));
  else sessionStorage.removeItem(STORAGE_KEY);
  clearTimeout(refreshTimer);
  if (next) {
    // silent refresh: identity refreshes an access token once it has expired (or within its early window)
    // (or within its early window): try ahead by a fifth of its lifetime, at most a minute, else just
    // after expiry
    const lead = Math.min(60_000, Math.max(0, (next.expiresAt - next.issuedAt) / 5));
    scheduleRefresh(next.expiresAt - lead);
  }
  for (const listener of listeners) listener(next);
}

function scheduleRefresh(at: number): void {
  clearTimeout(refreshTimer);
  const delay = Math.max(1_000, at - Date.now());
  refreshTimer = setTimeout(() => void refreshSession(), Math.min(delay, 2_147_000_000));
}

/** Identity wraps its answers: `{ isSuccess, result, errors: [{ code, message }] }`. */
function unwrap(body: any): any {
  return body && typeof body === 'object' && 'isSuccess' in body && 'result' in body ? body.result : body;
}

export function restoreSession(): Session | null {
  const raw = sessionStorage.getItem(STORAGE_KEY);
  if (raw && !session) {
    try {
      setSession(JSON.parse(raw) as Session);
    } catch {
      sessionStorage.removeItem(STORAGE_KEY);
    }
  }
  return session;
}

export function currentSession(): Session | null {
  return session;
}

export function onSessionChange(listener: (s: Session | null) => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export async function login(userName: string, password: string): Promise<Session> {
  const answer = await request<TokenAnswer>('identity', '/api/v1/auth/login', {
    method: 'POST',
    body: { userName, password },
    anonymous: true,
  });
  const next = sessionFrom(answer, userName);
  setSession(next);
  return next;
}

export async function logout(): Promise<void> {
  try {
    if (session) await request('identity', '/api/v1/auth/logout', { method: 'POST', noRetry: true });
  } finally {
    setSession(null);
  }
}

/** Trades the refresh token for a new pair; false (and signed out) when identity refuses it. */
export async function refreshSession(): Promise<boolean> {
  if (!session) return false;
  if (refreshing) return refreshing;
  const current = session;
  refreshing = (async () => {
    try {
      const response = await fetch(`${consoleConfig().prefixes.identity}/api/v1/auth/refresh-token`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${current.accessToken}` },
        body: JSON.stringify({ refreshToken: current.refreshToken }),
      });
      const body = await response.json().catch(() => ({}));
      if (response.ok) {
        setSession(sessionFrom(unwrap(body) as TokenAnswer, current.userName));
        return true;
      }
      const code = body?.code ?? body?.errors?.[0]?.code;
      if (code === 'ACCESS_TOKEN_NOT_EXPIRED') {
        scheduleRefresh(current.expiresAt + 500);
        return true;
      }
      setSession(null);
      return false;
    } catch {
      return false;
    } finally {
      refreshing = null;
    }
  })();
  return refreshing;
}

export interface RequestOptions {
  method?: string;
  body?: unknown;
  query?: Record<string, string | number | undefined>;
  anonymous?: boolean;
  noRetry?: boolean;
  raw?: boolean;
  /** a body sent as it is (FormData for uploads) */
  rawBody?: BodyInit;
}

function headersFor(service: Service, options: RequestOptions): Record<string, string> {
  const headers: Record<string, string> = {};
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  if (session && !options.anonymous) {
    const cfg = consoleConfig();
    const sendToken = service === 'identity' || cfg.authenticated[service];
    if (sendToken) headers.authorization = `Bearer ${session.accessToken}`;
    headers['x-tenant-id'] = session.tenantId;
    // with authorization disabled the control plane takes the actor from X-Actor; with it enabled the
    // token decides and naming yourself is accepted
    if (service === 'controlPlane') headers['x-actor'] = session.userName;
  }
  return headers;
}

export async function request<T = any>(
  service: Service,
  path: string,
  options: RequestOptions = {},
): Promise<T> {
  const cfg = await loadConfig();
  const query = options.query
    ? '?' +
      Object.entries(options.query)
        .filter(([, v]) => v !== undefined && v !== '')
        .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(String(v))}`)
        .join('&')
    : '';
  const response = await fetch(`${cfg.prefixes[service]}${path}${query}`, {
    method: options.method ?? 'GET',
    headers: headersFor(service, options),
    body: options.rawBody ?? (options.body === undefined ? undefined : JSON.stringify(options.body)),
  });
  if (response.status === 401 && session && !options.anonymous && !options.noRetry) {
    if (await refreshSession()) return request<T>(service, path, { ...options, noRetry: true });
  }
  if (options.raw && response.ok) return response as unknown as T;
  const text = await response.text();
  let body: any = text;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    /* not JSON */
  }
  if (!response.ok) {
    const first = Array.isArray(body?.errors) ? body.errors[0] : undefined;
    const message =
      (body && typeof body === 'object' && (body.error || body.message || first?.message)) ||
      `${response.status} ${response.statusText}`;
    throw new ApiError(response.status, body?.code ?? first?.code, String(message), body);
  }
  return unwrap(body) as T;
}

export const cp = <T = any>(path: string, options?: RequestOptions) =>
  request<T>('controlPlane', path, options);
export const dt = <T = any>(path: string, options?: RequestOptions) => request<T>('decisions', path, options);

export function errorText(error: unknown): string {
  if (error instanceof ApiError) {
    const details = (error.body as any)?.details;
    const list = Array.isArray(details)
      ? details.map((d: any) => `${d.field ?? d.path ?? ''}: ${d.message}`).join('; ')
      : '';
    return `${error.message}${error.code ? ` (${error.code})` : ''}${list ? ` — ${list}` : ''}`;
  }
  return error instanceof Error ? error.message : String(error);
}
