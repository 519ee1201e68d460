import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';

/** How a throttle key counts: failures before a lockout, first and longest lockout, forgetting window. */
export interface AttemptLimits {
  maxFailures: number;
  lockoutSeconds: number;
  maxLockoutSeconds: number;
  windowSeconds: number;
}

/** What reserving an attempt answered: counted (the attempt may be checked) or refused (locked). */
export type Reservation = { counted: true; failures: number } | { counted: false; lockedUntil: Date };

/**
 * `auth_login_attempts` (service-wide): attempts and lockouts per throttle key, shared by replicas.
 * Counting is one atomic statement per key, so parallel attempts cannot all pass the check.
 */
@Injectable()
export class LoginAttemptRepository {
  /**
   * Counts one attempt for the key unless it is locked; the attempt that reaches `maxFailures` locks
   * the key at once (`lockoutSeconds`, doubling per further attempt up to `maxLockoutSeconds`). Counts
   * older than `windowSeconds` (and not locked) start again at 1.
   */
  async reserve(m: EntityManager, key: string, limits: AttemptLimits): Promise<Reservation> {
    const next = `CASE WHEN a.last_failure < now() - make_interval(secs => $5) THEN 1 ELSE a.failures + 1 END`;
    const rows: { failures: number }[] = await m.query(
      `INSERT INTO auth_login_attempts AS a (key, failures, last_failure, locked_until)
       VALUES ($1, 1, now(), CASE WHEN 1 >= $2 THEN now() + make_interval(secs => $3) END)
       ON CONFLICT (key) DO UPDATE SET
         failures = ${next},
         last_failure = now(),
         locked_until = CASE WHEN ${next} >= $2
           THEN now() + make_interval(secs => least($3 * power(2, least(${next} - $2, 30)), $4))
           ELSE NULL END
       WHERE a.locked_until IS NULL OR a.locked_until <= now()
       RETURNING failures`,
      [key, limits.maxFailures, limits.lockoutSeconds, limits.maxLockoutSeconds, limits.windowSeconds],
    );
    if (rows.length > 0) return { counted: true, failures: rows[0].failures };
    const locked: { locked_until: Date }[] = await m.query(
      `SELECT locked_until FROM auth_login_attempts WHERE key = $1`,
      [key],
    );
    return { counted: false, lockedUntil: new Date(locked[0]?.locked_until ?? Date.now()) };
  }

  /** A successful attempt: the account's count ends. */
  async clear(m: EntityManager, key: string): Promise<void> {
    await m.query(`DELETE FROM auth_login_attempts WHERE key = $1`, [key]);
  }

  /** A successful attempt does not count against its address: takes back the reservation. */
  async release(m: EntityManager, key: string): Promise<void> {
    await m.query(
      `UPDATE auth_login_attempts SET failures = greatest(failures - 1, 0) WHERE key = $1 AND locked_until IS NULL`,
      [key],
    );
  }

  /** Deletes keys neither locked nor counted within the window; returns how many. */
  async prune(m: EntityManager, windowSeconds: number): Promise<number> {
    const [{ n }] = await m.query(
      `WITH pruned AS (
         DELETE FROM auth_login_attempts
          WHERE last_failure < now() - make_interval(secs => $1)
            AND (locked_until IS NULL OR locked_until < now())
         RETURNING key)
       SELECT count(*)::int AS n FROM pruned`,
      [windowSeconds],
    );
    return n;
  }

  async count(m: EntityManager): Promise<number> {
    const [{ n }] = await m.query(`SELECT count(*)::int AS n FROM auth_login_attempts`);
    return n;
  }
}
