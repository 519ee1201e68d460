let lastMs = Number.NaN;
let lastIso = '';

/**
 * The current time as an ISO-8601 string, formatted once per millisecond however many executions ask
 * (the audit stamp of the hot path: thousands of executions share each millisecond under load).
 */
export function isoNow(now: number = Date.now()): string {
  if (now !== lastMs) {
    lastMs = now;
    lastIso = new Date(now).toISOString();
  }
  return lastIso;
}
