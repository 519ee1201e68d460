import { AppError, UnitOfWork } from '@arbiter/platform';
import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { IdentityAuthSettings } from '../settings';
import { AttemptLimits, LoginAttemptRepository } from './persistence/login-attempt.repository';

/**
 * A login identifier as the throttle and the lookup compare it: compatibility-normalised (NFKC: full-width
 * and other look-alike forms fold), accents and other combining marks dropped, lower-cased, trimmed. So
 * `ALİCE`, `ＡＬＩＣＥ` and `alice` are one account.
 */
export function normalizeIdentifier(raw: string): string {
  return raw.normalize('NFKD').replace(/\p{M}/gu, '').normalize('NFKC').toLowerCase().trim();
}

/** The throttle keys of one login attempt. */
export interface AttemptKeys {
  account: string;
  address: string;
}

/**
 * Login brute-force protection, on by default, counted in the database (shared by replicas) BEFORE the
 * password is checked: each attempt atomically takes one of `LoginMaxFailures` per account (the user's
 * id when the identifier names a user, by name or e-mail, else the normalised identifier; per tenant),
 * and one of `LoginMaxFailuresPerAddress` per client address. The attempt that uses the last one locks
 * the key at once, so of any number of parallel attempts at most the limit are checked. A locked key is
 * 429 with `Retry-After` (even with the right password), for `LoginLockoutSeconds`, doubling per
 * further attempt up to `LoginMaxLockoutSeconds`. A success ends the account's count and takes back
 * its address's attempt. Counts expire after `LoginFailureWindowSeconds`; expired rows are pruned.
 */
@Injectable()
export class LoginThrottle implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('LoginThrottle');
  private timer: NodeJS.Timeout | undefined;

  constructor(
    @Inject(UnitOfWork) private readonly uow: UnitOfWork,
    @Inject(LoginAttemptRepository) private readonly attempts: LoginAttemptRepository,
    @Inject(IdentityAuthSettings) private readonly settings: IdentityAuthSettings,
  ) {}

  onApplicationBootstrap(): void {
    const every = Math.max(5, Math.min(this.settings.loginFailureWindowSeconds, 300)) * 1000;
    this.timer = setInterval(() => {
      this.prune().catch((error) =>
        this.logger.warn({ msg: 'login attempts not pruned', error: String(error) }),
      );
    }, every);
    this.timer.unref();
  }

  onApplicationShutdown(): void {
    if (this.timer) clearInterval(this.timer);
  }

  keys(tenantId: string, account: { userId?: string; identifier: string }, address: string): AttemptKeys {
    return {
      account: `account|${tenantId}|${account.userId ?? `name:${normalizeIdentifier(account.identifier)}`}`,
      address: `address|${address}`,
    };
  }

  private limits(perAddress: boolean): AttemptLimits {
    const s = this.settings;
    return {
      maxFailures: perAddress ? s.loginMaxFailuresPerAddress : s.loginMaxFailures,
      lockoutSeconds: s.loginLockoutSeconds,
      maxLockoutSeconds: s.loginMaxLockoutSeconds,
      windowSeconds: s.loginFailureWindowSeconds,
    };
  }

  /** Takes one attempt of the account and of the address, or throws 429 when either is locked. */
  async reserve(keys: AttemptKeys): Promise<void> {
    const refusal = await this.uow.run(async (m) => {
      const address = await this.attempts.reserve(m, keys.address, this.limits(true));
      if (!address.counted) return address.lockedUntil;
      const account = await this.attempts.reserve(m, keys.account, this.limits(false));
      if (!account.counted) {
        await this.attempts.release(m, keys.address);
        return account.lockedUntil;
      }
      return undefined;
    });
    if (refusal) {
      throw AppError.tooManyRequests(
        Math.max(1, (refusal.getTime() - Date.now()) / 1000),
        'Too many failed logins; try again later',
      );
    }
  }

  /**
   * The password was right: the account's count ends, the address's attempt is taken back. Rows are
   * locked in `reserve`'s order (address, then account): the other order deadlocked against parallel
   * logins on PostgreSQL (500s for correct passwords).
   */
  async succeeded(keys: AttemptKeys): Promise<void> {
    await this.uow.run(async (m) => {
      await this.attempts.release(m, keys.address);
      await this.attempts.clear(m, keys.account);
    });
  }

  /** Deletes counts older than the window that hold no lockout. */
  prune(): Promise<number> {
    return this.uow.run((m) => this.attempts.prune(m, this.settings.loginFailureWindowSeconds));
  }
}
