import { AppError } from '@arbiter/platform';
import { CanActivate, ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { createHash, timingSafeEqual } from 'node:crypto';
import { LicenseServerSettings } from '../settings';
import { LicenseErrors } from './license-errors';

/** The header admin routes read. */
export const ADMIN_KEY_HEADER = 'x-admin-api-key';

const digest = (value: string) => createHash('sha256').update(value, 'utf8').digest();

/**
 * Admin routes (`/api/v1/keys/*`, the assembly whitelist): `X-Admin-Api-Key` must equal
 * `LicenseServer:AdminApiKey`. Both sides are hashed to the same length and compared with
 * `timingSafeEqual`, so the time taken says nothing about how much of a guess was right. A wrong or
 * missing key is 401 `ADMIN_KEY_INVALID` (never a 500); no key configured (possible in Development and
 * Testing only) refuses every call with 401 `ADMIN_KEY_NOT_CONFIGURED`.
 */
@Injectable()
export class AdminKeyGuard implements CanActivate {
  private readonly expected: Buffer | undefined;

  constructor(@Inject(LicenseServerSettings) settings: LicenseServerSettings) {
    const key = settings.adminApiKey.trim();
    this.expected = key ? digest(key) : undefined;
  }

  canActivate(context: ExecutionContext): boolean {
    if (!this.expected) {
      throw AppError.unauthorized(
        'Admin routes are disabled: LicenseServer:AdminApiKey is not configured',
        LicenseErrors.AdminKeyNotConfigured,
      );
    }
    const request = context.switchToHttp().getRequest<{ headers: Record<string, unknown> }>();
    const header = request.headers[ADMIN_KEY_HEADER];
    const given = typeof header === 'string' ? header : '';
    if (!given || !timingSafeEqual(digest(given), this.expected)) {
      throw AppError.unauthorized('Missing or wrong X-Admin-Api-Key', LicenseErrors.AdminKeyInvalid);
    }
    return true;
  }
}
