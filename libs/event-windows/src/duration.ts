/**
 * Durations of window configurations: ISO 8601 (`PT10M`, `P1DT2H`, `PT0.5S`, `P2W`) or the .NET
 * `TimeSpan` text the spec's field names suggest (`00:10:00`, `1.02:00:00`, `00:00:01.5`). Both give
 * whole milliseconds; anything else (years and months, which have no fixed length, negative values,
 * garbage) gives `null` and the caller names the field.
 */
const ISO =
  /^P(?:(\d+(?:\.\d+)?)W)?(?:(\d+(?:\.\d+)?)D)?(?:T(?:(\d+(?:\.\d+)?)H)?(?:(\d+(?:\.\d+)?)M)?(?:(\d+(?:\.\d+)?)S)?)?$/;
const DOTNET = /^(?:(\d+)\.)?(\d{1,2}):(\d{1,2})(?::(\d{1,2})(?:\.(\d{1,7}))?)?$/;

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** Largest duration accepted: 10 years (a window or time-to-live past that is a mistake). */
export const MAX_DURATION_MS = 3650 * DAY;

export function parseDuration(text: unknown): number | null {
  if (typeof text !== 'string') return null;
  const value = text.trim();
  let ms: number | null = null;
  const iso = ISO.exec(value);
  if (iso && value !== 'P' && !value.endsWith('T')) {
    const [, w, d, h, m, s] = iso;
    ms = num(w) * 7 * DAY + num(d) * DAY + num(h) * HOUR + num(m) * MINUTE + num(s) * SECOND;
  } else {
    const net = DOTNET.exec(value);
    if (net) {
      const [, d, h, m, s, f] = net;
      if (Number(h) > 23 || Number(m) > 59 || Number(s ?? 0) > 59) return null;
      ms =
        num(d) * DAY +
        Number(h) * HOUR +
        Number(m) * MINUTE +
        num(s) * SECOND +
        (f ? Number(`0.${f}`) * SECOND : 0);
    }
  }
  if (ms === null || !Number.isFinite(ms) || ms > MAX_DURATION_MS) return null;
  return Math.round(ms);
}

function num(part: string | undefined): number {
  return part === undefined ? 0 : Number(part);
}

/** ISO 8601 text of a duration in milliseconds (`PT10M`, `P1DT2H`, `PT0.25S`); `PT0S` for zero. */
export function formatDuration(ms: number): string {
  let rest = Math.max(0, Math.round(ms));
  const days = Math.floor(rest / DAY);
  rest -= days * DAY;
  const hours = Math.floor(rest / HOUR);
  rest -= hours * HOUR;
  const minutes = Math.floor(rest / MINUTE);
  rest -= minutes * MINUTE;
  const seconds = rest / SECOND;
  let time = '';
  if (hours) time += `${hours}H`;
  if (minutes) time += `${minutes}M`;
  if (seconds) time += `${seconds}S`;
  const text = `P${days ? `${days}D` : ''}${time ? `T${time}` : ''}`;
  return text === 'P' ? 'PT0S' : text;
}
