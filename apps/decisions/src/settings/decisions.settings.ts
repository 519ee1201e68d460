import { ApiKeyEntry, parseApiKeyConfig, parseServiceApiKeys } from '@arbiter/auth';
import { ConfigKey, ConfigurationError, EnvironmentName, StartupRules } from '@arbiter/platform';
import { IsBoolean, IsInt, IsString, Max, Min } from 'class-validator';
import { ScenariosSettings } from './scenarios.settings';

/**
 * `ConnectionStrings:*`. The spec names no key for the decision-table store; this service uses
 * `ConnectionStrings:DecisionTablesDb` (required, like the control plane's database).
 */
export class DecisionsConnectionStrings implements StartupRules {
  @ConfigKey('ConnectionStrings:DecisionTablesDb')
  @IsString()
  decisionTablesDb: string = '';

  @ConfigKey('ConnectionStrings:Cache')
  @IsString()
  cache: string = '';

  assertStartupRules(): void {
    if (!this.decisionTablesDb.trim()) {
      throw new ConfigurationError('ConnectionStrings:DecisionTablesDb is required and is empty', [
        'ConnectionStrings:DecisionTablesDb',
      ]);
    }
  }
}

/**
 * `Authentication:*`: who may call the decision-table API (spec 2: a valid JWT or an API key).
 * Tokens are verified against `{Authority}/.well-known/jwks.json` (identity), with `Issuer` and
 * `Audience`. API keys are configured per tenant as SHA-256 hashes. With neither configured the
 * service refuses to start unless `Authentication:AllowAnonymous` is true (the Development and Testing
 * configuration files set it), then runs open with a warning.
 */
export class JwtAuthenticationSettings implements StartupRules {
  /** Identity's base URL, e.g. `http://identity:3002`. */
  @ConfigKey('Authentication:Jwt:Authority')
  @IsString()
  authority: string = '';

  @ConfigKey('Authentication:Jwt:Audience')
  @IsString()
  audience: string = '';

  /** Ours: the `iss` tokens must carry (identity's `TokenConfigs:Issuer`). Required with `Authority`. */
  @ConfigKey('Authentication:Jwt:Issuer')
  @IsString()
  issuer: string = '';

  /** Ours: identity's denylist endpoint; default `{Authority}/api/v1/auth/revocations`. */
  @ConfigKey('Authentication:Jwt:RevocationsUrl')
  @IsString()
  revocationsUrl: string = '';

  /** Ours: a service key of identity (`IdentityAuth:ServiceApiKeys`), sent to load the denylist. */
  @ConfigKey('Authentication:Jwt:RevocationsApiKey')
  @IsString()
  revocationsApiKey: string = '';

  /** Ours: allowed clock skew for `exp`/`nbf`, at most 15 seconds. */
  @ConfigKey('Authentication:Jwt:ClockToleranceSeconds')
  @IsInt()
  @Min(0)
  @Max(15)
  clockToleranceSeconds: number = 5;

  /**
   * Ours: API keys per tenant, `Authentication:ApiKeys:<tenantId>` = `sha256:<hex>[,sha256:<hex>…]`
   * (the SHA-256 of the key; the key itself is never configured). Presented as `X-Api-Key: <key>`,
   * `Authorization: ApiKey <key>` or `Authorization: Bearer <key>`.
   */
  /** Spec 3 `Authentication:Cookie:Name`: when set, the access token is read from this cookie first. */
  @ConfigKey('Authentication:Cookie:Name')
  @IsString()
  cookieName: string = '';

  @ConfigKey('Authentication:ApiKeys', 'dictionary')
  apiKeys: Record<string, string> = {};

  /**
   * Ours: service keys (as `Authentication:ApiKeys:*`), `sha256:<hex>[,sha256:<hex>…]`, under a name an
   * environment variable can carry: `Authentication__ServiceApiKeys` (a shell drops the `*` of
   * `Authentication__ApiKeys__*`). Both are read; a service key acts for the tenant a request names.
   */
  @ConfigKey('Authentication:ServiceApiKeys')
  @IsString()
  serviceApiKeys: string = '';

  /** Every configured API key: tenant keys, and service keys from both places. */
  apiKeyEntries(): ApiKeyEntry[] {
    return [
      ...parseApiKeyConfig(this.apiKeys ?? {}, 'Authentication:ApiKeys'),
      ...parseServiceApiKeys(this.serviceApiKeys, 'Authentication:ServiceApiKeys'),
    ];
  }

  /**
   * Ours: with neither `Jwt:Authority` nor `ApiKeys`, serve every request anonymously (any tenant by
   * `x-tenant-id`). Off by default: the service then refuses to start. The Development and Testing
   * configuration files turn it on. A request presenting a credential anyway is 401.
   */
  @ConfigKey('Authentication:AllowAnonymous')
  @IsBoolean()
  allowAnonymous: boolean = false;

  assertStartupRules(environment: EnvironmentName): void {
    const hasKeys = Object.keys(this.apiKeys ?? {}).length > 0 || this.serviceApiKeys.trim() !== '';
    if (this.authority.trim()) {
      for (const [key, value] of [
        ['Authentication:Jwt:Issuer', this.issuer],
        ['Authentication:Jwt:Audience', this.audience],
      ]) {
        if (!value.trim()) {
          throw new ConfigurationError(`${key} is required when Authentication:Jwt:Authority is set`, [key]);
        }
      }
    } else if (!hasKeys && !this.allowAnonymous) {
      throw new ConfigurationError(
        `Authentication:Jwt:Authority (or Authentication:ApiKeys) is required in ${environment} unless Authentication:AllowAnonymous is true: the decision-table API needs a JWT or an API key`,
        // the key a deployment provides (the message names the Development/Testing way out)
        ['Authentication:Jwt:Authority'],
      );
    }
    try {
      parseApiKeyConfig(this.apiKeys ?? {}, 'Authentication:ApiKeys');
    } catch (error) {
      throw new ConfigurationError((error as Error).message, ['Authentication:ApiKeys']);
    }
    try {
      parseServiceApiKeys(this.serviceApiKeys, 'Authentication:ServiceApiKeys');
    } catch (error) {
      throw new ConfigurationError((error as Error).message, ['Authentication:ServiceApiKeys']);
    }
  }
}

export const DECISIONS_SETTINGS = [DecisionsConnectionStrings, JwtAuthenticationSettings, ScenariosSettings];
