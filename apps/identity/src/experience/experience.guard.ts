import { AppError } from '@arbiter/platform';
import { CanActivate, ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { createHash, timingSafeEqual } from 'node:crypto';
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { ExperienceErrors } from './experience-errors';
import { ExperienceSettings } from './experience.settings';

interface RequestLike {
  ip?: string;
  headers: Record<string, string | string[] | undefined>;
}

const digest = (s: string) => createHash('sha256').update(s).digest();

/**
 * The experience routes' door: with `serverAuthToken` configured, `Authorization: Bearer <token>`
 * (compared in constant time; missing or wrong → 401), none otherwise. Rate limits per client address
 * (rate-limiter-flexible, in memory per replica): `RateLimitPerMinute` (100) for requests without a
 * valid token, including failed attempts, `RateLimitPerMinuteWithToken` (500) with it; over → 429 with
 * `Retry-After`.
 */
@Injectable()
export class ExperienceGuard implements CanActivate {
  private readonly anonymous: RateLimiterMemory;
  private readonly withToken: RateLimiterMemory;
  private readonly token: Buffer | null;

  constructor(@Inject(ExperienceSettings) settings: ExperienceSettings) {
    this.anonymous = new RateLimiterMemory({ points: settings.rateLimitPerMinute, duration: 60 });
    this.withToken = new RateLimiterMemory({ points: settings.rateLimitPerMinuteWithToken, duration: 60 });
    this.token = settings.serverAuthToken ? digest(settings.serverAuthToken) : null;
  }

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<RequestLike>();
    const address = request.ip ?? 'unknown';
    if (!this.token) {
      await this.consume(this.anonymous, address);
      return true;
    }
    const header = request.headers.authorization;
    const value = Array.isArray(header) ? header[0] : header;
    const match = value?.match(/^Bearer\s+(.+)$/i);
    if (!match) {
      await this.consume(this.anonymous, address);
      throw AppError.unauthorized('Missing bearer token', ExperienceErrors.TokenMissing);
    }
    if (!timingSafeEqual(digest(match[1].trim()), this.token)) {
      await this.consume(this.anonymous, address);
      throw AppError.unauthorized('Invalid bearer token', ExperienceErrors.TokenInvalid);
    }
    await this.consume(this.withToken, address);
    return true;
  }

  private async consume(limiter: RateLimiterMemory, key: string): Promise<void> {
    try {
      await limiter.consume(key);
    } catch (rejection) {
      if (rejection instanceof RateLimiterRes) {
        throw new AppError(429, ExperienceErrors.RateLimited, 'Rate limit exceeded', undefined, {
          'retry-after': String(Math.max(1, Math.ceil(rejection.msBeforeNext / 1000))),
        });
      }
      throw rejection;
    }
  }
}
