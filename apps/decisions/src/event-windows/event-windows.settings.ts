import { ConfigKey, ConfigurationError, StartupRules } from '@arbiter/platform';
import { IsInt, IsString, Max, Min } from 'class-validator';

/** `EventWindows:*`: limits and partitioning of the CEP windows (our keys; the spec names none). */
export class EventWindowsSettings implements StartupRules {
  /** Events one simulate or ingest request may carry; past it a 413 `EVENT_BATCH_TOO_LARGE`. */
  @ConfigKey('EventWindows:MaxBatchEvents')
  @IsInt()
  @Min(1)
  @Max(1_000_000)
  maxBatchEvents: number = 50_000;

  /** Events of a window's contents shown in an answer (the rest is counted in `Truncated`). */
  @ConfigKey('EventWindows:MaxContents')
  @IsInt()
  @Min(0)
  @Max(1000)
  maxContents: number = 100;

  /** Partitions of the correlation-key space (FNV-1a hash of the key modulo this). Same on every replica. */
  @ConfigKey('EventWindows:Partitions')
  @IsInt()
  @Min(1)
  @Max(1024)
  partitions: number = 16;

  /**
   * The partitions this replica holds windows for: `all` (one replica), or a list/ranges such as `0-7` or
   * `0,2,4-6`. Replicas together must own every partition exactly once.
   */
  @ConfigKey('EventWindows:OwnedPartitions')
  @IsString()
  ownedPartitions: string = 'all';

  /** How often the clock advances every live window (closes windows, expires keys), ms. */
  @ConfigKey('EventWindows:ClockIntervalMs')
  @IsInt()
  @Min(10)
  @Max(60_000)
  clockIntervalMs: number = 1000;

  /**
   * The live clock runs this far behind the wall clock: an event is late when it arrives more than this
   * plus its configuration's `AllowedLateness` after its own `Timestamp`; windows close this much later.
   */
  @ConfigKey('EventWindows:ClockDelayMs')
  @IsInt()
  @Min(0)
  @Max(3_600_000)
  clockDelayMs: number = 5000;

  /**
   * At start a replica rebuilds its partitions' windows from the JetStream stream: it replays the partition
   * messages stored from this long ago (ms, default 24 h, the `ARBITER` stream's retention). Should cover the
   * longest `WindowSize` (or `TimeToLive` for sessions) plus `AllowedLateness` and `ClockDelayMs`.
   */
  @ConfigKey('EventWindows:ReplayMs')
  @IsInt()
  @Min(0)
  @Max(30 * 24 * 3_600_000)
  replayMs: number = 24 * 3_600_000;

  /** How long a key-window read waits for the owner (another replica, over NATS request/reply), ms. */
  @ConfigKey('EventWindows:ReadTimeoutMs')
  @IsInt()
  @Min(10)
  @Max(60_000)
  readTimeoutMs: number = 3000;

  owned(): Set<number> {
    return parseOwnedPartitions(this.ownedPartitions, this.partitions);
  }

  assertStartupRules(): void {
    try {
      this.owned();
    } catch (error) {
      throw new ConfigurationError(`EventWindows:OwnedPartitions: ${(error as Error).message}`, [
        'EventWindows:OwnedPartitions',
      ]);
    }
  }
}

export function parseOwnedPartitions(text: string, partitions: number): Set<number> {
  const value = text.trim();
  const out = new Set<number>();
  if (value === '' || value === 'all') {
    for (let p = 0; p < partitions; p++) out.add(p);
    return out;
  }
  for (const part of value.split(',')) {
    const m = /^\s*(\d+)\s*(?:-\s*(\d+)\s*)?$/.exec(part);
    if (!m) throw new Error(`'${part}' is not a partition number or range`);
    const from = Number(m[1]);
    const to = m[2] === undefined ? from : Number(m[2]);
    if (from > to || to >= partitions)
      throw new Error(`'${part}' is outside 0-${partitions - 1} (EventWindows:Partitions)`);
    for (let p = from; p <= to; p++) out.add(p);
  }
  return out;
}
