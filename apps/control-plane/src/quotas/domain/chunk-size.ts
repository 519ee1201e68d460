/**
 * A replica never takes more than this share of what is left in a window in one reservation, so
 * near the limit the chunk shrinks to 1 and what one replica holds unused stays small.
 */
export const REMAINING_SHARE_DIVISOR = 8;

export interface ChunkInput {
  /** Acquisitions of this replica waiting for this reservation (at least 1). */
  waiting: number;
  /** Evaluations this replica consumed for the tenant during the last second. */
  recentRate: number;
  /** Evaluations left in the tightest limited window as last seen (null: no limited window). */
  remaining: number | null;
  /** `Quotas:MaxReservationChunk`. */
  max: number;
}

/**
 * How many evaluations to reserve from the database at once: about one second of this replica's
 * traffic, at most 1/8 of what is left (at least 1), at most `max`, and never less than the callers
 * already waiting (they consume the chunk at once, so nothing they take is stranded).
 */
export function reservationChunk({ waiting, recentRate, remaining, max }: ChunkInput): number {
  let ahead = Math.max(1, recentRate);
  if (remaining !== null)
    ahead = Math.min(ahead, Math.max(1, Math.floor(remaining / REMAINING_SHARE_DIVISOR)));
  return Math.max(1, Math.min(max, Math.max(waiting, ahead)));
}

/** Below this many evaluations left in a window, a replica reserves only when a caller waits. */
export const PREFETCH_MIN_REMAINING = 8 * REMAINING_SHARE_DIVISOR;

/**
 * Reserve the next chunk in the background once half of the last one is used, so callers rarely
 * wait for the database; but not near the limit, where a chunk reserved ahead could sit unused on
 * one replica while another is refused.
 */
export function shouldPrefetch(input: {
  budget: number;
  lastGranted: number;
  remaining: number | null;
}): boolean {
  if (input.budget > Math.floor(input.lastGranted / 2)) return false;
  return input.remaining === null || input.remaining >= PREFETCH_MIN_REMAINING;
}
