import type { HostedEnvelope } from '@arbiter/contracts';

let isoMs = Number.NaN;
let iso = '';

/**
 * `new Date().toISOString()`, formatted once per millisecond: the hot routes answer many requests in one
 * (validate: ≈ 20 a millisecond under load), and the formatting was ≈ 1.6 % of that server's CPU.
 */
function nowIso(): string {
  const ms = Date.now();
  if (ms !== isoMs) {
    isoMs = ms;
    iso = new Date(ms).toISOString();
  }
  return iso;
}

/** Success in the hosted envelope `{ isSuccess, result, errors, timestamp }`. */
export function ok<T>(result: T): HostedEnvelope<T> {
  return { isSuccess: true, result, errors: [], timestamp: nowIso() };
}
