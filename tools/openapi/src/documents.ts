import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** The services whose documents the build writes, by the name of their file. */
export const SERVICE_NAMES = ['control-plane', 'decisions', 'identity'] as const;
export type ServiceName = (typeof SERVICE_NAMES)[number];

/** The repository root (this file sits in tools/openapi/src or tools/openapi/dist). */
export const REPO_ROOT = resolve(__dirname, '..', '..', '..');
export const DOCUMENTS_DIR = join(REPO_ROOT, 'docs', 'openapi');
export const BASELINE_DIR = join(DOCUMENTS_DIR, 'baseline');
/** The breaking changes a release ships on purpose (see docs/openapi/README.md). */
export const RECORD_PATH = join(DOCUMENTS_DIR, 'breaking-changes.json');
/** Redocly's configuration (the recommended rules) for `npm run lint:openapi` and the contract test. */
export const REDOCLY_CONFIG_PATH = join(REPO_ROOT, 'redocly.yaml');

/** `docs/openapi/<service>.json`: the document the build writes (and the service serves at /docs-json). */
export function documentPath(service: ServiceName): string {
  return join(DOCUMENTS_DIR, `${service}.json`);
}

/** `docs/openapi/baseline/<service>.json`: the contract as of the last release. */
export function baselinePath(service: ServiceName): string {
  return join(BASELINE_DIR, `${service}.json`);
}

/** The one way documents are written: 2-space JSON and a trailing newline (stable diffs). */
export function serializeDocument(document: unknown): string {
  return `${JSON.stringify(document, null, 2)}\n`;
}

export function readJson(path: string): any {
  if (!existsSync(path)) throw new Error(`${path} does not exist`);
  return JSON.parse(readFileSync(path, 'utf8'));
}

/** `METHOD /path` of every operation in a document, in its order. */
export function operationsOf(document: any): string[] {
  const operations: string[] = [];
  for (const [path, item] of Object.entries<any>(document.paths ?? {})) {
    for (const method of ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']) {
      if (item[method]) operations.push(`${method.toUpperCase()} ${path}`);
    }
  }
  return operations;
}
