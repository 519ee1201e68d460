import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';

/** `auth_login_attempts` (service-wide): failed logins and lockouts per throttle key, shared by replicas. */
@Injectable()
export class LoginAttemptRepository {
  /** When the key's lockout ends, if it has one. */
  async lockedUntil(m: EntityManager, key: string): Promise<Date | undefined> {
    const rows: { locked_until: Date | null }[] = await m.query(
      `SELECT locked_until FROM auth_login_attempts WHERE key = $1`,
      [key],
    );
    return rows[0]?.locked_until ? new Date(rows[0].locked_until) : undefined;
  }

  /** Counts one more failure for the key; returns the failures so far. */
  async addFailure(m: EntityManager, key: string): Promise<number> {
    const rows: { failures: number }[] = await m.query(
      `INSERT INTO auth_login_attempts (key, failures, last_failure) VALUES ($1, 1, now())
       ON CONFLICT (key) DO UPDATE SET failures = auth_login_attempts.failures + 1, last_failure = now()
       RETURNING failures`,
      [key],
    );
    return rows[0].failures;
  }

  async lockFor(m: EntityManager, key: string, seconds: number): Promise<void> {
    await m.query(
      `UPDATE auth_login_attempts SET locked_until = now() + make_interval(secs => $2) WHERE key = $1`,
      [key, seconds],
    );
  }

  async clear(m: EntityManager, key: string): Promise<void> {
    await m.query(`DELETE FROM auth_login_attempts WHERE key = $1`, [key]);
  }
}
