import { Injectable } from '@nestjs/common';

/** What validate reads of a license for a machine. */
export interface ValidationRow {
  tier: string;
  allowed_features: string[];
  expires_at: Date;
  is_revoked: boolean;
  activated: boolean;
}

/** How long a read is reused; entries kept at most. */
const TTL_MS = 1000;
const MAX_ENTRIES = 10_000;

/**
 * Validate's read, reused for a second per (key, fingerprint): the online check is a hot path, and a
 * second of staleness is within what a revocation takes to reach other replicas anyway (this replica
 * clears the cache at once on revoke, feature update and activation). Unknown keys are cached too, so a
 * flood of made-up keys costs one read each per second at most.
 */
@Injectable()
export class ValidationCache {
  private readonly entries = new Map<string, { at: number; row: ValidationRow | undefined }>();

  get(key: string, now = Date.now()): { row: ValidationRow | undefined } | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (now - entry.at >= TTL_MS) {
      this.entries.delete(key);
      return undefined;
    }
    return entry;
  }

  set(key: string, row: ValidationRow | undefined, now = Date.now()): void {
    if (this.entries.size >= MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value as string);
    this.entries.set(key, { at: now, row });
  }

  clear(): void {
    this.entries.clear();
  }
}
