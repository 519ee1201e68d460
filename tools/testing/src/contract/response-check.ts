import { AsyncLocalStorage } from 'node:async_hooks';
import { OpenApiContract } from './openapi-contract';

/**
 * Every response a test receives from one of our services is checked against that service's OpenAPI
 * document (fetched once per origin from `/docs-json`): a status, media type or body the document does not
 * allow is a contract violation, and the jest setup fails the test that received it. Servers that are not
 * ours (a test's own stub servers: no `x-correlation-id` on their answers) are never asked for a document.
 */
const LOCAL_ORIGIN = /^https?:\/\/(127\.0\.0\.1|localhost|\[::1\]):\d+$/;
const DOCUMENT_PATH = '/docs-json';

const skip = new AsyncLocalStorage<string>();
const documents = new Map<string, Promise<OpenApiContract | null>>();
const pending = new Set<Promise<void>>();
let violations: string[] = [];
let checked = 0;
let originalFetch: typeof fetch | undefined;

function loadContract(origin: string, refresh = false): Promise<OpenApiContract | null> {
  if (!refresh && documents.has(origin)) return documents.get(origin)!;
  const loading = originalFetch!(`${origin}${DOCUMENT_PATH}`, { signal: AbortSignal.timeout(5000) })
    .then(async (res) => {
      if (!res.ok) return null;
      const document: any = await res.json().catch(() => null);
      return document && typeof document.openapi === 'string' ? new OpenApiContract(document) : null;
    })
    .catch(() => null);
  documents.set(origin, loading);
  return loading;
}

async function checkResponse(method: string, url: URL, response: Response): Promise<void> {
  // only our services are asked for a document: every answer of the platform carries a correlation id (a
  // test's stub server does not, and must not receive requests it does not expect)
  if (!response.headers.has('x-correlation-id') && !documents.has(url.origin)) return;
  const origin = url.origin;
  let contract = await loadContract(origin);
  if (!contract) return;
  const contentType = response.headers.get('content-type');
  const streaming = /text\/event-stream/i.test(contentType ?? '');
  const body = streaming ? '' : await response.text().catch(() => '');
  let problems = contract.check(method, url.pathname, response.status, contentType, body);
  if (problems.length && !contract.match(method, url.pathname)) {
    // the port may now belong to another service: read its document again once
    contract = await loadContract(origin, true);
    if (!contract) return;
    problems = contract.check(method, url.pathname, response.status, contentType, body);
  }
  checked++;
  violations.push(...problems);
}

/** Wraps `globalThis.fetch` so every response from a local service is checked (idempotent). */
export function installResponseCheck(): void {
  if (originalFetch) return;
  originalFetch = globalThis.fetch;
  const base = originalFetch;
  globalThis.fetch = async function checkedFetch(input: any, init?: any): Promise<Response> {
    const response = await base(input, init);
    try {
      const url = new URL(typeof input === 'string' || input instanceof URL ? String(input) : input.url);
      const method = String(
        init?.method ?? (typeof input === 'object' && 'method' in input ? input.method : 'GET'),
      );
      if (!LOCAL_ORIGIN.test(url.origin) || url.pathname.startsWith('/docs') || skip.getStore())
        return response;
      const copy = response.clone();
      const check = checkResponse(method, url, copy).catch((error) => {
        violations.push(`${method} ${url.pathname}: the response could not be checked (${String(error)})`);
      });
      pending.add(check);
      void check.finally(() => pending.delete(check));
    } catch {
      /* not a URL we check */
    }
    return response;
  } as typeof fetch;
}

/** Runs `work` without checking its responses: only for a test about behaviour outside the contract. */
export function withoutContractCheck<T>(reason: string, work: () => Promise<T>): Promise<T> {
  return skip.run(reason, work);
}

/** Waits for the checks under way and returns (and forgets) the violations found so far. */
export async function takeContractViolations(): Promise<string[]> {
  const deadline = new Promise<void>((resolve) => setTimeout(resolve, 5000).unref());
  await Promise.race([Promise.allSettled([...pending]), deadline]);
  const found = violations;
  violations = [];
  return found;
}

/** How many responses were checked in this test file. */
export function checkedResponses(): number {
  return checked;
}
