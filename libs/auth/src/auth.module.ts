import {
  DynamicModule,
  Global,
  Inject,
  Injectable,
  Logger,
  Module,
  OnApplicationBootstrap,
  OnApplicationShutdown,
  Provider,
  Type,
} from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { Subjects } from '@arbiter/contracts';
import { EventBus, EventSubscription, isDevelopmentOrTesting } from '@arbiter/platform';
import { ApiKeyAuthenticator } from './api-keys';
import { AUTH_OPTIONS, AuthOptions } from './auth.options';
import { AuthGuard, AuthPipeline } from './auth.guard';
import { LicenseCheck, NoLicenseCheck, NoQuotaCheck, QuotaCheck } from './hooks';
import { PermissionDecisionPoint } from './policy-decision-point';
import { RevocationList } from './revocation-list';
import { TokenVerifier } from './token-verifier';

/**
 * Keeps the denylist current: subscribes to `arbiter.auth.token-revoked` (every replica gets every
 * event: no queue group), loads the current list from the revocation source at startup (retrying in
 * the background until it succeeds) and resynchronises periodically to cover bus outages.
 */
@Injectable()
export class RevocationSync implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('Auth');
  private subscription: EventSubscription | undefined;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(
    @Inject(AUTH_OPTIONS) private readonly options: AuthOptions,
    @Inject(RevocationList) private readonly list: RevocationList,
    @Inject(EventBus) private readonly bus: EventBus,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const o = this.options;
    if (!o.enabled) {
      const message = `Authentication and authorization are DISABLED for ${o.service}${o.disabledReason ? ` (${o.disabledReason})` : ''}: every request is anonymous, tenant and actor come from headers`;
      if (o.environment === 'Development') this.logger.warn(message);
      else this.logger.error(`WARNING: ${message}. Do not run like this in ${o.environment}.`);
      return;
    }
    if (!o.tokens) return;
    this.subscription = await this.bus.subscribe(Subjects.TokenRevoked, (event) => {
      this.list.add({ jti: event.data.jti, expiresAt: event.data.expiresAt });
    });
    this.list.startPurging();
    const source = o.revocationSource;
    if (!source) return;
    const label = o.revocationSourceLabel ?? 'revocation source';
    const loaded = await this.list.tryLoad(source, label);
    const resyncMs = Math.max(1, o.revocationResyncSeconds ?? 60) * 1000;
    const schedule = (ms: number) => {
      if (this.stopped) return;
      this.timer = setTimeout(async () => {
        const ok = await this.list.tryLoad(source, label);
        schedule(ok ? resyncMs : Math.min(5_000, resyncMs));
      }, ms);
      this.timer.unref();
    };
    schedule(loaded ? resyncMs : Math.min(isDevelopmentOrTesting(o.environment) ? 1_000 : 5_000, resyncMs));
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.list.stop();
    await this.subscription?.unsubscribe().catch(() => undefined);
  }
}

export interface AuthModuleOptions {
  inject?: (string | symbol | Type<unknown>)[];
  useFactory: (...deps: any[]) => AuthOptions | Promise<AuthOptions>;
  /** Replaces the no-op license check (pipeline step 2). */
  licenseCheck?: Type<LicenseCheck>;
  /** Replaces the no-op quota check (pipeline step 3). */
  quotaCheck?: Type<QuotaCheck>;
  /** Extra providers the factory needs (e.g. identity's key store). */
  providers?: Provider[];
  imports?: DynamicModule['imports'];
}

/**
 * Installs the global AuthGuard (authentication → license → quota → permissions) and the revocation
 * denylist. Import once in an app module.
 */
@Global()
@Module({})
export class AuthModule {
  static forRoot(options: AuthModuleOptions): DynamicModule {
    return {
      module: AuthModule,
      imports: options.imports ?? [],
      providers: [
        ...(options.providers ?? []),
        { provide: AUTH_OPTIONS, inject: options.inject ?? [], useFactory: options.useFactory },
        { provide: RevocationList, useValue: new RevocationList() },
        {
          provide: TokenVerifier,
          inject: [AUTH_OPTIONS, RevocationList],
          useFactory: (o: AuthOptions, list: RevocationList) =>
            o.tokens ? new TokenVerifier({ ...o.tokens, revocations: list }) : null,
        },
        {
          provide: ApiKeyAuthenticator,
          inject: [AUTH_OPTIONS],
          useFactory: (o: AuthOptions) => new ApiKeyAuthenticator(o.apiKeys ?? []),
        },
        {
          provide: PermissionDecisionPoint,
          inject: [AUTH_OPTIONS],
          useFactory: (o: AuthOptions) => o.decisionPoint ?? null,
        },
        { provide: LicenseCheck, useClass: options.licenseCheck ?? NoLicenseCheck },
        { provide: QuotaCheck, useClass: options.quotaCheck ?? NoQuotaCheck },
        RevocationSync,
        AuthPipeline,
        { provide: APP_GUARD, useClass: AuthGuard },
      ],
      exports: [
        AUTH_OPTIONS,
        AuthPipeline,
        RevocationList,
        TokenVerifier,
        ApiKeyAuthenticator,
        LicenseCheck,
        QuotaCheck,
      ],
    };
  }
}
