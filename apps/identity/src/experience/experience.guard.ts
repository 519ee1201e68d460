import { AppError } from '@arbiter/platform';
import { CanActivate, ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { createHash, timingSafeEqual } from 'node:crypto';
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { ExperienceErrors } from './experience-errors';
import { ExperienceSettings } from './experience.settings';

interface RequestLike {
  ip?: string;
  headers: Record<string, unknown>;
}

const digest = (s: string) => createHash('sha256').update(s).digest();
const BEARER = /^Bearer\s+(.+)$/i;

/**
 * The experience routes' door, one for the Nest routes (`ExperienceGuard`) and the hot routes
 * (`ExperienceHotRoutes`): with `serverAuthToken` configured, `Authorization: Bearer <token>` (compared in
 * constant time; missing or wrong → 401), none otherwise. Rate limits per client address
 * (rate-limiter-flexible, in memory per replica — see the README for why not shared): `RateLimitPerMinute`
 * (100) for requests without a valid token, including failed attempts, `RateLimitPerMinuteWithToken` (500)
 * with it; over → 429 with `Retry-After`.
 */
@Injectable()
export class ExperienceDoor {
  private readonly anonymous: RateLimiterMemory;
  private readonly withToken: RateLimiterMemory;
  private readonly token: Buffer | null;

  constructor(@Inject(ExperienceSettings) settings: ExperienceSettings) {
    this.anonymous = new RateLimiterMemory({ points: settings.rateLimitPerMinute, duration: 60 });
    this.withToken = new RateLimiterMemory({ points: settings.rateLimitPerMinuteWithToken, duration: 60 });
    this.token = settings.serverAuthToken ? digest(settings.serverAuthToken) : null;
  }

  /** Admits the request, or rejects with its 401 / 429. */
  admit(request: RequestLike): Promise<void> {
    const address = request.ip || 'unknown';
    if (!this.token) return this.consume(this.anonymous, address);
    const header = request.headers.authorization;
    const value = Array.isArray(header) ? header[0] : header;
    const match = typeof value === 'string' ? value.match(BEARER) : null;
    if (!match) {
      return this.consume(this.anonymous, address).then(() => {
        throw AppError.unauthorized('Missing bearer token', ExperienceErrors.TokenMissing);
      });
    }
    if (!timingSafeEqual(digest(match[1].trim()), this.token)) {
      return this.consume(this.anonymous, address).then(() => {
        throw AppError.unauthorized('Invalid bearer token', ExperienceErrors.TokenInvalid);
      });
    }
    return this.consume(this.withToken, address);
  }

  private consume(limiter: RateLimiterMemory, key: string): Promise<void> {
    return limiter.consume(key).then(
      () => undefined,
      (rejection: unknown) => {
        if (rejection instanceof RateLimiterRes) {
          throw new AppError(429, ExperienceErrors.RateLimited, 'Rate limit exceeded', undefined, {
            'retry-after': String(Math.max(1, Math.ceil(rejection.msBeforeNext / 1000))),
          });
        }
        throw rejection;
      },
    );
  }
}

/** The door for the experience routes served by Nest. */
@Injectable()
export class ExperienceGuard implements CanActivate {
  constructor(@Inject(ExperienceDoor) private readonly door: ExperienceDoor) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    await this.door.admit(context.switchToHttp().getRequest<RequestLike>());
    return true;
  }
}
