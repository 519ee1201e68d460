/** A small client of `/api/v1/rule-engine/cep` for the API tests. */
export function cep(base: string, tenant = 'tenant-a') {
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${base}/api/v1/rule-engine/cep${path}`, {
      method,
      headers: {
        'x-tenant-id': tenant,
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      body: body !== undefined ? JSON.stringify(body) : undefined,
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null };
  };
  return {
    get: (p: string) => call('GET', p),
    post: (p: string, b: unknown) => call('POST', p, b),
    put: (p: string, b: unknown) => call('PUT', p, b),
    del: (p: string) => call('DELETE', p),
  };
}
