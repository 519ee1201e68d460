/**
 * JSON Canonicalization Scheme (RFC 8785): object keys sorted by UTF-16 code units, no whitespace,
 * numbers in ECMAScript form, strings as JSON.stringify writes them. Same output as the `canonicalize`
 * package, which is installed but ships as an `import`-only ES module that this CommonJS build (and
 * Jest) cannot `require`; the algorithm is this small, so it lives here.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new TypeError('canonical JSON: non-finite number');
    return JSON.stringify(value);
  }
  if (typeof value === 'string' || typeof value === 'boolean') return JSON.stringify(value);
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function')
    return canonicalJson((value as { toJSON(): unknown }).toJSON());
  if (Array.isArray(value))
    return `[${value.map((v) => (v === undefined ? 'null' : canonicalJson(v))).join(',')}]`;
  if (typeof value === 'object') {
    const entries = Object.keys(value as object)
      .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`);
    return `{${entries.join(',')}}`;
  }
  throw new TypeError(`canonical JSON: cannot serialise ${typeof value}`);
}
