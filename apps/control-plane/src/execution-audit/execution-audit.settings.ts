import { ConfigKey, ConfigurationError, StartupRules } from '@arbiter/platform';
import { IsBoolean, IsInt, IsString, Max, Min } from 'class-validator';

/** `ExecutionAudit:*`: the batched execution audit sink (buffer, batches, retry, spill file). */
export class ExecutionAuditSettings implements StartupRules {
  /** Entries held in memory at most; when full, `record()` waits for room (or spills, see below). */
  @ConfigKey('ExecutionAudit:BufferSize')
  @IsInt()
  @Min(1)
  @Max(10_000_000)
  bufferSize = 50_000;

  /** Entries written per INSERT; a full batch is flushed at once, without waiting for the timer. */
  @ConfigKey('ExecutionAudit:BatchSize')
  @IsInt()
  @Min(1)
  @Max(10_000)
  batchSize = 1_000;

  @ConfigKey('ExecutionAudit:FlushIntervalMs')
  @IsInt()
  @Min(1)
  @Max(60_000)
  flushIntervalMs = 250;

  /** First retry delay after a failed batch; doubled per failure up to `MaxRetryDelayMs`. */
  @ConfigKey('ExecutionAudit:RetryDelayMs')
  @IsInt()
  @Min(1)
  retryDelayMs = 200;

  @ConfigKey('ExecutionAudit:MaxRetryDelayMs')
  @IsInt()
  @Min(1)
  maxRetryDelayMs = 10_000;

  /** How long shutdown waits for the database before the remaining entries go to a spill file. */
  @ConfigKey('ExecutionAudit:ShutdownFlushMs')
  @IsInt()
  @Min(1)
  @Max(60_000)
  shutdownFlushMs = 5_000;

  /** Folder of the append-only NDJSON spill files (one file per service instance). */
  @ConfigKey('ExecutionAudit:SpillDirectory')
  @IsString()
  spillDirectory = '.data/execution-audit-spill';

  /**
   * true: when the buffer is full while the database is failing, the oldest batches go to the spill
   * file instead of making callers wait. false (default): back-pressure. On shutdown with the database
   * down, the buffer is always spilled.
   */
  @ConfigKey('ExecutionAudit:SpillWhenFull')
  @IsBoolean()
  spillWhenFull = false;

  assertStartupRules(): void {
    if (this.batchSize > this.bufferSize)
      throw new ConfigurationError(
        `ExecutionAudit:BatchSize (${this.batchSize}) must not exceed ExecutionAudit:BufferSize (${this.bufferSize})`,
        ['ExecutionAudit:BatchSize', 'ExecutionAudit:BufferSize'],
      );
    if (!this.spillDirectory.trim())
      throw new ConfigurationError('ExecutionAudit:SpillDirectory must not be empty', [
        'ExecutionAudit:SpillDirectory',
      ]);
  }
}

/** Settings classes (`@ConfigKey`) of this module; registered in CONTROL_PLANE_SETTINGS. */
export const EXECUTION_AUDIT_SETTINGS: (new () => object)[] = [ExecutionAuditSettings];
