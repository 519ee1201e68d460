import { AppError, UnitOfWork } from '@arbiter/platform';
import { Inject, Injectable } from '@nestjs/common';
import { IdentityAuthSettings } from '../settings/identity.settings';

/**
 * Login brute-force protection, on by default: failures are counted per (tenant, identifier, client
 * address) in the database (shared by replicas). After `LoginMaxFailures` failures the key is locked
 * for `LoginLockoutSeconds`, doubling with each further failure up to `LoginMaxLockoutSeconds`;
 * a locked key gets 429 with `Retry-After` even with the right password. Success clears the key.
 */
@Injectable()
export class LoginThrottle {
  constructor(
    @Inject(UnitOfWork) private readonly uow: UnitOfWork,
    @Inject(IdentityAuthSettings) private readonly settings: IdentityAuthSettings,
  ) {}

  key(tenantId: string, identifier: string, address: string): string {
    return `${tenantId}|${identifier.trim().toLowerCase()}|${address}`;
  }

  async assertNotLocked(key: string): Promise<void> {
    const rows: { locked_until: Date | null }[] = await this.uow.run((m) =>
      m.query(`SELECT locked_until FROM auth_login_attempts WHERE key = $1`, [key]),
    );
    const until = rows[0]?.locked_until ? new Date(rows[0].locked_until).getTime() : 0;
    if (until > Date.now()) {
      throw AppError.tooManyRequests((until - Date.now()) / 1000, 'Too many failed logins; try again later');
    }
  }

  /** Records a failure; returns the lockout in seconds when this failure caused one. */
  async recordFailure(key: string): Promise<number | undefined> {
    const s = this.settings;
    return this.uow.run(async (m) => {
      const rows: { failures: number }[] = await m.query(
        `INSERT INTO auth_login_attempts (key, failures, last_failure) VALUES ($1, 1, now())
         ON CONFLICT (key) DO UPDATE SET failures = auth_login_attempts.failures + 1, last_failure = now()
         RETURNING failures`,
        [key],
      );
      const failures = rows[0].failures;
      if (failures < s.loginMaxFailures) return undefined;
      const seconds = Math.min(
        s.loginLockoutSeconds * 2 ** (failures - s.loginMaxFailures),
        s.loginMaxLockoutSeconds,
      );
      await m.query(
        `UPDATE auth_login_attempts SET locked_until = now() + make_interval(secs => $2) WHERE key = $1`,
        [key, seconds],
      );
      return seconds;
    });
  }

  async clear(key: string): Promise<void> {
    await this.uow.run((m) => m.query(`DELETE FROM auth_login_attempts WHERE key = $1`, [key]));
  }
}
