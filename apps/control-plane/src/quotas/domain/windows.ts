/** Fixed UTC windows the evaluation limits count in. */
export type WindowKind = 'minute' | 'day';

export const WINDOW_MS: Readonly<Record<WindowKind, number>> = { minute: 60_000, day: 86_400_000 };

/** Start (epoch ms) of the window of `kind` that contains `now`. */
export function windowStart(kind: WindowKind, now: number): number {
  return now - (now % WINDOW_MS[kind]);
}

/** End (epoch ms, exclusive) of the window of `kind` that contains `now`. */
export function windowEnd(kind: WindowKind, now: number): number {
  return windowStart(kind, now) + WINDOW_MS[kind];
}

/** Whole seconds until `until`, at least 1 (a `Retry-After` value). */
export function secondsUntil(until: number, now: number): number {
  return Math.max(1, Math.ceil((until - now) / 1000));
}
