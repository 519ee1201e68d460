import type { ServerClock } from './documents';

/**
 * What a runtime remembers between checks (persisted by the caller): the newest server time and
 * counter it has accepted and the local time it saw them at.
 */
export interface ClockState {
  serverTime: string;
  counter: number;
  localTime: string;
}

export type ClockCheck =
  | { ok: true; state: ClockState }
  | {
      ok: false;
      reason: 'CLOCK_TAMPERED' | 'REPLAYED_DOCUMENT';
      message: string;
      state: ClockState | undefined;
    };

/** Five minutes of tolerated skew between the runtime's clock and the server's. */
export const DEFAULT_CLOCK_TOLERANCE_MS = 5 * 60_000;

/**
 * Checks the local clock against what the server said and what was seen before:
 * - the local time is earlier than a server time already seen (minus the tolerance): the clock was set back;
 * - the local time is earlier than the local time of the last check (minus the tolerance): set back too;
 * - a document's counter is lower than one already accepted: an old document is replayed.
 * On success the newest observation becomes the state.
 */
export function checkClock(
  previous: ClockState | undefined,
  observed: ServerClock | undefined,
  localNow: Date,
  toleranceMs = DEFAULT_CLOCK_TOLERANCE_MS,
): ClockCheck {
  const now = localNow.getTime();
  if (previous) {
    const seenServer = Date.parse(previous.serverTime);
    const seenLocal = Date.parse(previous.localTime);
    if (now + toleranceMs < seenServer || now + toleranceMs < seenLocal) {
      return {
        ok: false,
        reason: 'CLOCK_TAMPERED',
        message: `local clock ${localNow.toISOString()} is behind a time already seen (${previous.serverTime} / ${previous.localTime})`,
        state: previous,
      };
    }
    if (observed && observed.counter < previous.counter) {
      return {
        ok: false,
        reason: 'REPLAYED_DOCUMENT',
        message: `document counter ${observed.counter} is lower than the last accepted ${previous.counter}`,
        state: previous,
      };
    }
  }
  if (observed && now + toleranceMs < Date.parse(observed.serverTime)) {
    return {
      ok: false,
      reason: 'CLOCK_TAMPERED',
      message: `local clock ${localNow.toISOString()} is behind the server's ${observed.serverTime}`,
      state: previous,
    };
  }
  const newer = !previous || (observed && observed.counter >= previous.counter);
  const serverTime =
    observed && newer
      ? observed.serverTime
      : (previous?.serverTime ?? observed?.serverTime ?? localNow.toISOString());
  const counter = observed && newer ? observed.counter : (previous?.counter ?? 0);
  const localTime =
    previous && Date.parse(previous.localTime) > now ? previous.localTime : localNow.toISOString();
  return { ok: true, state: { serverTime, counter, localTime } };
}
