import { UnitOfWork } from '@arbiter/platform';
import type { EntityManager } from 'typeorm';
import { IdentityAuthSettings } from '../settings/identity.settings';
import { LoginThrottle } from './login-throttle';
import { LoginAttemptRepository } from './persistence/login-attempt.repository';

/** The attempts table in memory; `now` is the test's clock. */
class InMemoryLoginAttempts extends LoginAttemptRepository {
  readonly rows = new Map<string, { failures: number; lockedUntil?: Date }>();
  now = Date.now();
  override async lockedUntil(_m: EntityManager, key: string) {
    return this.rows.get(key)?.lockedUntil;
  }
  override async addFailure(_m: EntityManager, key: string) {
    const row = this.rows.get(key) ?? { failures: 0 };
    row.failures++;
    this.rows.set(key, row);
    return row.failures;
  }
  override async lockFor(_m: EntityManager, key: string, seconds: number) {
    this.rows.get(key)!.lockedUntil = new Date(this.now + seconds * 1000);
  }
  override async clear(_m: EntityManager, key: string) {
    this.rows.delete(key);
  }
}

const uow = { run: (work: (m: EntityManager) => unknown) => work({} as EntityManager) } as UnitOfWork;

describe('LoginThrottle', () => {
  let attempts: InMemoryLoginAttempts;
  let throttle: LoginThrottle;

  beforeEach(() => {
    attempts = new InMemoryLoginAttempts();
    const settings = Object.assign(new IdentityAuthSettings(), {
      loginMaxFailures: 3,
      loginLockoutSeconds: 30,
      loginMaxLockoutSeconds: 100,
    });
    throttle = new LoginThrottle(uow, attempts, settings);
  });

  it('keys by tenant, identifier (trimmed, case-insensitive) and client address', () => {
    expect(throttle.key('t1', ' Alice ', '10.0.0.1')).toBe('t1|alice|10.0.0.1');
  });

  it('locks a key after LoginMaxFailures failures, doubling up to LoginMaxLockoutSeconds', async () => {
    const key = throttle.key('t', 'alice', 'ip');
    expect(await throttle.recordFailure(key)).toBeUndefined();
    expect(await throttle.recordFailure(key)).toBeUndefined();
    expect(await throttle.recordFailure(key)).toBe(30);
    expect(await throttle.recordFailure(key)).toBe(60);
    expect(await throttle.recordFailure(key)).toBe(100);
    expect(await throttle.recordFailure(key)).toBe(100);
  });

  it('answers 429 with the seconds left while locked, even before a password is checked', async () => {
    const key = throttle.key('t', 'alice', 'ip');
    for (let i = 0; i < 3; i++) await throttle.recordFailure(key);
    await expect(throttle.assertNotLocked(key)).rejects.toMatchObject({ status: 429 });
    await expect(throttle.assertNotLocked(throttle.key('t', 'alice', 'other-ip'))).resolves.toBeUndefined();
  });

  it('lets a key in again once its lockout is over', async () => {
    const key = throttle.key('t', 'alice', 'ip');
    for (let i = 0; i < 3; i++) await throttle.recordFailure(key);
    attempts.now -= 31_000; // the lockout was set 31 s ago
    attempts.rows.get(key)!.lockedUntil = new Date(attempts.now + 30_000);
    await expect(throttle.assertNotLocked(key)).resolves.toBeUndefined();
  });

  it('forgets failures after a success', async () => {
    const key = throttle.key('t', 'alice', 'ip');
    await throttle.recordFailure(key);
    await throttle.recordFailure(key);
    await throttle.clear(key);
    expect(await throttle.recordFailure(key)).toBeUndefined();
  });
});
