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
