import { InMemoryLoginAttempts, inMemoryUnitOfWork } from '../../test/in-memory-repositories';
import { IdentityAuthSettings } from '../settings';
import { LoginThrottle } from './login-throttle';

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
    throttle = new LoginThrottle(inMemoryUnitOfWork, attempts, settings);
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
