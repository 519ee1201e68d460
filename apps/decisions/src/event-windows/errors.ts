import { AuthErrorCodes } from '@arbiter/auth';
import { defineErrorFamily } from '@arbiter/platform';

/** Stable `code` values of the event-window (CEP) API. */
export const EventWindowErrors = {
  ConfigNotFound: 'EVENT_WINDOW_NOT_FOUND',
  InvalidConfigId: 'INVALID_EVENT_WINDOW_ID',
  /** 400: `WindowSize`, `TimeToLive` or `AllowedLateness` is neither ISO 8601 (`PT10M`) nor `00:10:00` */
  InvalidDuration: 'INVALID_DURATION',
  /** 400: `WindowSize` is zero (a negative duration is an invalid duration) */
  InvalidWindowSize: 'INVALID_WINDOW_SIZE',
  /** 400: `WindowSize` is longer than `TimeToLive`: the window would outlive its events */
  WindowLongerThanTtl: 'WINDOW_LONGER_THAN_TTL',
  /** 400: `EmitMode` `OnClose` on a sliding window (a sliding window never closes) */
  EmitModeNotSupported: 'EMIT_MODE_NOT_SUPPORTED',
  /** 400: the body names another tenant than the caller's */
  TenantMismatch: 'TENANT_MISMATCH',
  /** 400: an event's `Timestamp` is not an ISO 8601 date-time between years 1 and 9999 */
  InvalidTimestamp: 'INVALID_TIMESTAMP',
  /** 400: an event has no `Key` (nor a `Value` field named by `CorrelationKey`) */
  InvalidEvent: 'INVALID_EVENT',
  /** 413: a batch holds more events than `EventWindows:MaxBatchEvents` */
  BatchTooLarge: 'EVENT_BATCH_TOO_LARGE',
  /**
   * 503: the replica holding the key's partition did not answer a window read (none serves it, or it timed
   * out), or this replica is still rebuilding the partition's windows from the stream
   */
  PartitionUnavailable: 'WINDOW_PARTITION_UNAVAILABLE',
} as const;

export const EventWindowErrorFamily = defineErrorFamily({
  name: 'EventWindowError',
  envelope: 'trace',
  description:
    'An event-window (CEP) failure: `{ error, code, traceId }` (`details`, one entry per bad field, on ' +
    '`VALIDATION_FAILED`, `INVALID_DURATION`, `INVALID_TIMESTAMP` and `INVALID_EVENT`).',
  codes: [AuthErrorCodes, EventWindowErrors],
});
