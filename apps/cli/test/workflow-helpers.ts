/** What the two-service workflow tests (scenario gate, AI proposals) share. */

/** A loan rule set with a numeric boundary (`amount <boundary> 5000`), an or-condition and a fact comparison. */
export const loanRules = (boundary = '>=') => ({
  rules: [
    {
      id: 'big',
      name: 'big',
      condition: `amount ${boundary} 5000 and country = "NL"`,
      output: { review: true },
    },
    {
      id: 'vip',
      name: 'vip',
      condition: 'customer.tier = "gold" or customer.years > 10',
      output: { fast: true },
    },
    { id: 'over', name: 'over', condition: 'amount > limit', output: { overLimit: true } },
  ],
});

/** JSON over HTTP as the tenant's user `alice`: `{ status, body }` with the body parsed. */
export function http(base: string, tenant: string) {
  return async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: {
        'x-tenant-id': tenant,
        'x-actor': 'alice',
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      body: body !== undefined ? JSON.stringify(body) : undefined,
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null };
  };
}
