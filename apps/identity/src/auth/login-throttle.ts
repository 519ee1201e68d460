import { AppError, UnitOfWork } from '@arbiter/platform';
import { Inject, Injectable } from '@nestjs/common';
import { IdentityAuthSettings } from '../settings';
import { LoginAttemptRepository } from './persistence/login-attempt.repository';

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
    @Inject(LoginAttemptRepository) private readonly attempts: LoginAttemptRepository,
    @Inject(IdentityAuthSettings) private readonly settings: IdentityAuthSettings,
  ) {}

  key(tenantId: string, identifier: string, address: string): string {
    return `${tenantId}|${identifier.trim().toLowerCase()}|${address}`;
  }

  async assertNotLocked(key: string): Promise<void> {
    const until = (await this.uow.run((m) => this.attempts.lockedUntil(m, key)))?.getTime() ?? 0;
    if (until > Date.now()) {
      throw AppError.tooManyRequests((until - Date.now()) / 1000, 'Too many failed logins; try again later');
    }
  }

  /** Records a failure; returns the lockout in seconds when this failure caused one. */
  async recordFailure(key: string): Promise<number | undefined> {
    const s = this.settings;
    return this.uow.run(async (m) => {
      const failures = await this.attempts.addFailure(m, key);
      if (failures < s.loginMaxFailures) return undefined;
      const seconds = Math.min(
        s.loginLockoutSeconds * 2 ** (failures - s.loginMaxFailures),
        s.loginMaxLockoutSeconds,
      );
      await this.attempts.lockFor(m, key, seconds);
      return seconds;
    });
  }

  async clear(key: string): Promise<void> {
    await this.uow.run((m) => this.attempts.clear(m, key));
  }
}
