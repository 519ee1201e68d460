/** Per-script limits of the JavaScript sandbox. */
export interface SandboxLimits {
  /** Longest run, in milliseconds (default 50, at most 10,000). */
  timeoutMs?: number;
  /** Heap of the script's runtime, in bytes (default 16 MiB). */
  memoryLimitBytes?: number;
  /** Stack of the script's runtime, in bytes (default 128 KiB ≈ 680 nested calls, at most 256 KiB). */
  stackSizeBytes?: number;
}

export const DEFAULT_SANDBOX_TIMEOUT_MS = 50;
export const MAX_SANDBOX_TIMEOUT_MS = 10_000;
export const DEFAULT_SANDBOX_MEMORY_BYTES = 16 * 1024 * 1024;
export const DEFAULT_SANDBOX_STACK_BYTES = 128 * 1024;
/** The smallest heap a runtime can start in (the frozen intrinsics alone take a few hundred KiB). */
const MIN_MEMORY_BYTES = 1024 * 1024;
const MIN_STACK_BYTES = 16 * 1024;
/**
 * QuickJS's frames also take V8's own stack (≈ 4 bytes of it per byte of QuickJS stack): measured here,
 * 512 KiB overflows V8 before QuickJS's check fires, 256 KiB does when the host is already a few
 * thousand frames deep, 128 KiB does not. Past the limit the sandbox survives anyway (the instance is
 * replaced), but a clean `SANDBOX_MEMORY` from QuickJS itself is the normal path.
 */
const MAX_STACK_BYTES = 256 * 1024;
const MAX_MEMORY_BYTES = 1024 * 1024 * 1024;

export type ResolvedSandboxLimits = Required<SandboxLimits>;

/** Defaults applied, out-of-range values clamped. */
export function resolveSandboxLimits(limits: SandboxLimits = {}): ResolvedSandboxLimits {
  return {
    timeoutMs: clamp(limits.timeoutMs, DEFAULT_SANDBOX_TIMEOUT_MS, 1, MAX_SANDBOX_TIMEOUT_MS),
    memoryLimitBytes: clamp(
      limits.memoryLimitBytes,
      DEFAULT_SANDBOX_MEMORY_BYTES,
      MIN_MEMORY_BYTES,
      MAX_MEMORY_BYTES,
    ),
    stackSizeBytes: clamp(
      limits.stackSizeBytes,
      DEFAULT_SANDBOX_STACK_BYTES,
      MIN_STACK_BYTES,
      MAX_STACK_BYTES,
    ),
  };
}

function clamp(value: number | undefined, fallback: number, min: number, max: number): number {
  if (value === undefined || !Number.isFinite(value)) return fallback;
  return Math.min(max, Math.max(min, Math.floor(value)));
}
