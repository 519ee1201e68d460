/** Kinds of window. `Sliding` and `Tumbling` are the spec's; `Session` groups events by an inactivity gap. */
export type WindowType = 'Sliding' | 'Tumbling' | 'Session';
export const WINDOW_TYPES: readonly WindowType[] = ['Sliding', 'Tumbling', 'Session'];

/** When a window's result is reported: at every event that updates it, or once when it closes. */
export type EmitMode = 'OnUpdate' | 'OnClose';
export const EMIT_MODES: readonly EmitMode[] = ['OnUpdate', 'OnClose'];

export const AGGREGATES = ['count', 'sum', 'avg', 'min', 'max', 'distinctCount', 'first', 'last'] as const;
export type AggregateName = (typeof AGGREGATES)[number];

export interface WindowDefinition {
  type: WindowType;
  /** Window length in ms; for `Session` the inactivity gap that closes a session. */
  sizeMs: number;
  /** A key with no event for this long (behind the watermark, after the lateness) is dropped entirely. */
  timeToLiveMs: number;
  /** Events up to this far behind the key's watermark are still merged into their window (default 0). */
  allowedLatenessMs?: number;
  /** Aggregates computed for a window (default `count` and `sum`). */
  aggregates?: readonly AggregateName[];
  /**
   * Keep each event's original value (default true): window contents, and `distinctCount`, `first`,
   * `last` of non-numeric values need it. Without it an event costs 16 bytes of buffer.
   */
  retainValues?: boolean;
}

/** Aggregates of a window: only the configured ones are present. Over no numeric value, avg/min/max are null. */
export interface Aggregates {
  count?: number;
  sum?: number;
  avg?: number | null;
  min?: number | null;
  max?: number | null;
  distinctCount?: number;
  first?: unknown;
  last?: unknown;
}

/**
 * A window of one key. Times are epoch milliseconds. Sliding: `(start, end]`, end the event's time.
 * Tumbling: `[start, end)`, aligned as the spec says (floor(ticks / windowTicks) × windowTicks, .NET ticks
 * since 0001-01-01). Session: `start` the first event, `end` the last event plus the gap.
 */
export interface WindowResult {
  key: string;
  start: number;
  end: number;
  count: number;
  aggregates: Aggregates;
}

/** One buffered event of a window's contents. */
export interface WindowEvent {
  timestamp: number;
  value: unknown;
}

export interface EngineCounters {
  /** Events accepted into a window. */
  accepted: number;
  /** Events behind the key's watermark by more than the allowed lateness: counted, never merged. */
  late: number;
  /** Events that left memory: slid out of a window, in a closed window, or in a key past its time-to-live. */
  evicted: number;
  /** Keys dropped by time-to-live. */
  expiredKeys: number;
  /** Windows closed (tumbling and session). */
  closed: number;
}

export const ACCEPTED = 0;
export const LATE = 1;
export type AddStatus = typeof ACCEPTED | typeof LATE;
