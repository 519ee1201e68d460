import type { HostedEnvelope } from '@arbiter/contracts';

/** Success in the hosted envelope `{ isSuccess, result, errors, timestamp }`. */
export function ok<T>(result: T): HostedEnvelope<T> {
  return { isSuccess: true, result, errors: [], timestamp: new Date().toISOString() };
}
