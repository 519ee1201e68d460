export const sampleTable = (name = 'Loan risk') => ({
  name,
  description: 'risk by age and country',
  hitPolicy: 'First',
  inputColumns: [
    { name: 'age', type: 'number', required: true },
    { name: 'country', type: 'string' },
  ],
  outputColumns: [{ name: 'risk', type: 'string' }],
  rows: [
    { id: 'r1', priority: 1, inputConditions: { age: '< 18' }, outputs: { risk: 'minor' } },
    {
      id: 'r2',
      priority: 2,
      inputConditions: { age: '[18..65]', country: '"NL","BE"' },
      outputs: { risk: 'low' },
    },
    { id: 'r3', priority: 3, inputConditions: { age: '>= 18' }, outputs: { risk: 'high' } },
  ],
});

export function client(base: string, tenant = 'tenant-a') {
  const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const res = await fetch(`${base}/api/v1/decision-tables${path}`, {
      method,
      headers: {
        'x-tenant-id': tenant,
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...headers,
      },
      body: body !== undefined ? JSON.stringify(body) : undefined,
    });
    const text = await res.text();
    let json: any = null;
    try {
      json = text ? JSON.parse(text) : null;
    } catch {
      json = text;
    }
    return { status: res.status, body: json, headers: res.headers, text };
  };
  return {
    /** any method, with extra request headers */
    call,
    get: (p: string) => call('GET', p),
    post: (p: string, b?: unknown) => call('POST', p, b ?? {}),
    put: (p: string, b: unknown) => call('PUT', p, b),
    del: (p: string) => call('DELETE', p),
  };
}

/** A multipart upload to `POST /import?format=<format>` (one file part). */
export async function upload(
  base: string,
  format: string,
  data: Buffer | Uint8Array | string,
  filename: string,
  tenant = 'tenant-a',
) {
  const form = new FormData();
  form.append('file', new Blob([typeof data === 'string' ? data : Buffer.from(data)]), filename);
  const res = await fetch(`${base}/api/v1/decision-tables/import?format=${format}`, {
    method: 'POST',
    headers: { 'x-tenant-id': tenant },
    body: form,
  });
  const text = await res.text();
  let body: any = null;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    body = text;
  }
  return { status: res.status, body };
}
