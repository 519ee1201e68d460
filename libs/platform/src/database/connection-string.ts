import { isAbsolute, resolve } from 'node:path';

export type DatabaseTarget =
  { kind: 'postgres'; url: string } | { kind: 'pglite'; dataDir: string | null /* null: in memory */ };

/**
 * `postgres://…` / `postgresql://…` select a real server; `pglite://memory` an in-memory embedded
 * database; `pglite://<dir>` an embedded database persisted in a folder (relative to the working
 * directory unless absolute).
 */
export function parseConnectionString(value: string, key: string): DatabaseTarget {
  const text = value.trim();
  if (/^postgres(ql)?:\/\//i.test(text)) return { kind: 'postgres', url: text };
  const embedded = /^pglite:\/\/(.*)$/i.exec(text);
  if (embedded) {
    const location = embedded[1].trim();
    if (location === '' || location.toLowerCase() === 'memory') return { kind: 'pglite', dataDir: null };
    return { kind: 'pglite', dataDir: isAbsolute(location) ? location : resolve(process.cwd(), location) };
  }
  throw new Error(`${key} must be postgres://…, pglite://memory or pglite://<dir> (got '${redact(text)}')`);
}

/** Hides the password of a connection string for logs and messages. */
export function redact(url: string): string {
  return url.replace(/(\/\/[^:/@]+:)[^@]*@/, '$1****@');
}
