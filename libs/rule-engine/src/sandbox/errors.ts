/** Why a sandboxed script failed. `code` is stable (it becomes the flow node's error code). */
export type SandboxErrorCode =
  /** The script ran past its time limit (an endless loop, for instance). */
  | 'SANDBOX_TIMEOUT'
  /** The script was stopped at the deadline of the evaluation it is part of (before its own limit). */
  | 'DEADLINE_EXCEEDED'
  /** The script exceeded its memory or stack limit (allocation bomb, runaway recursion, huge string). */
  | 'SANDBOX_MEMORY'
  /** The script does not compile, threw, or its input is not JSON. */
  | 'SANDBOX_ERROR'
  /** The script returned something other than a boolean. */
  | 'SANDBOX_RESULT';

export class SandboxError extends Error {
  constructor(
    readonly code: SandboxErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'SandboxError';
  }
}
