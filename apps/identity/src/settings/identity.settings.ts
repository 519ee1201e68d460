import { JWKS_REFRESH_COOLDOWN_MS } from '@arbiter/auth';
import {
  ConfigKey,
  ConfigurationError,
  EnvironmentName,
  isDevelopmentOrTesting,
  StartupRules,
} from '@arbiter/platform';
import { ExperienceSettings } from '../experience';
import { IsBoolean, IsIn, IsInt, IsNotEmpty, IsString, Max, Min, MinLength } from 'class-validator';

/**
 * `ConnectionStrings:*`. Identity keeps one database: `ConnectionStrings:LicenseDb` (required by the
 * spec) holds the license server's, the token service's and the experience service's tables.
 */
export class IdentityConnectionStrings implements StartupRules {
  @ConfigKey('ConnectionStrings:LicenseDb')
  @IsString()
  licenseDb: string = '';

  @ConfigKey('ConnectionStrings:Cache')
  @IsString()
  cache: string = '';

  assertStartupRules(): void {
    if (!this.licenseDb.trim()) {
      throw new ConfigurationError('ConnectionStrings:LicenseDb is required and is empty', [
        'ConnectionStrings:LicenseDb',
      ]);
    }
  }
}

/** `LicenseServer:*` and `LicenseConfigs:*`. */
export class LicenseServerSettings implements StartupRules {
  assertStartupRules(environment: EnvironmentName): void {
    if (!isDevelopmentOrTesting(environment) && !this.adminApiKey.trim()) {
      throw new ConfigurationError(
        `LicenseServer:AdminApiKey is required outside Development and Testing (environment: ${environment})`,
        ['LicenseServer:AdminApiKey'],
      );
    }
  }

  @ConfigKey('LicenseServer:AdminApiKey')
  @IsString()
  adminApiKey: string = '';

  @ConfigKey('LicenseServer:KeyRotationDays')
  @IsInt()
  @Min(1)
  keyRotationDays: number = 30;

  @ConfigKey('LicenseServer:RevocationRefreshMinutes')
  @IsInt()
  @Min(1)
  revocationRefreshMinutes: number = 5;

  @ConfigKey('LicenseServer:LicenseServerUrl')
  @IsString()
  licenseServerUrl: string = '';

  @ConfigKey('LicenseServer:RevocationGraceHours')
  @IsInt()
  @Min(0)
  revocationGraceHours: number = 24;

  @ConfigKey('LicenseConfigs:FingerprintScope')
  @IsIn(['MachineAndProject', 'ProjectOnly'])
  fingerprintScope: string = 'MachineAndProject';

  @ConfigKey('LicenseConfigs:RequireSignedPolicy')
  @IsBoolean()
  requireSignedPolicy: boolean = false;
}

/**
 * The shortest publish delay of a rotation: a verifier that fetched the JWKS just before the rotation
 * may refetch on an unknown `kid` only after its cooldown, and a replica re-reads the active key at
 * most a second late: the new key must not sign before both have passed.
 */
export const MIN_KEY_PUBLISH_DELAY_SECONDS = Math.ceil(JWKS_REFRESH_COOLDOWN_MS / 1000) + 1;

/**
 * `TokenConfigs:*`: token issuance and validation. Outside Development and Testing an RSA private key
 * is required when `UseRsa` is true (checked by the key store at startup, since the key may come from
 * the secret provider).
 */
export class TokenSettings {
  /**
   * Ours: how many seconds before its expiry an access token may already be presented to refresh. The
   * spec wants the expired token (default 0: a live one is 401 `ACCESS_TOKEN_NOT_EXPIRED`); a client
   * that refreshes ahead of time needs this margin. The larger, the longer a stolen pair can be renewed
   * while its access token still works.
   */
  @ConfigKey('IdentityAuth:RefreshEarlySeconds')
  @IsInt()
  @Min(0)
  refreshEarlySeconds: number = 0;

  /**
   * Ours: how long a rotated-in signing key is published in the JWKS before it signs (seconds). At
   * least the verifiers' JWKS refetch cooldown (5 s) plus a replica's key refresh (1 s), so that a
   * service that fetched the JWKS just before a rotation may fetch it again before it meets a token
   * signed with the new key. The old key keeps signing meanwhile.
   */
  @ConfigKey('IdentityAuth:KeyPublishDelaySeconds')
  @IsInt()
  @Min(MIN_KEY_PUBLISH_DELAY_SECONDS, {
    message: `IdentityAuth:KeyPublishDelaySeconds must be at least ${MIN_KEY_PUBLISH_DELAY_SECONDS} (the JWKS refetch cooldown of the verifiers plus a replica's key refresh)`,
  })
  @Max(86_400)
  keyPublishDelaySeconds: number = 30;

  @ConfigKey('TokenConfigs:SymmetricSecretKey')
  @IsString()
  @MinLength(32, { message: 'TokenConfigs:SymmetricSecretKey must be at least 32 characters' })
  symmetricSecretKey: string = '';

  @ConfigKey('TokenConfigs:Issuer')
  @IsString()
  @IsNotEmpty()
  issuer: string = '';

  @ConfigKey('TokenConfigs:Audience')
  @IsString()
  @IsNotEmpty()
  audience: string = '';

  @ConfigKey('TokenConfigs:ExpiryMinutes')
  @IsInt()
  @Min(1)
  @Max(1440)
  expiryMinutes: number = 15;

  @ConfigKey('TokenConfigs:RefreshTokenTtl')
  @IsInt()
  @Min(1)
  refreshTokenTtl: number = 10080;

  @ConfigKey('TokenConfigs:RefreshTokenEim')
  @IsInt()
  @Min(1)
  refreshTokenEim: number = 10440;

  @ConfigKey('TokenConfigs:UseRsa')
  @IsBoolean()
  useRsa: boolean = true;

  @ConfigKey('TokenConfigs:PublicKeyPath')
  @IsString()
  publicKeyPath: string = '';

  @ConfigKey('TokenConfigs:PrivateKeyPath')
  @IsString()
  privateKeyPath: string = '';

  @ConfigKey('TokenConfigs:PublicKey')
  @IsString()
  publicKey: string = '';

  @ConfigKey('TokenConfigs:PrivateKey')
  @IsString()
  privateKey: string = '';

  @ConfigKey('TokenConfigs:MultiTenantEnabled')
  @IsBoolean()
  multiTenantEnabled: boolean = false;

  @ConfigKey('TokenConfigs:SigningKeysByTenant', 'dictionary')
  signingKeysByTenant: Record<string, string> = {};

  @ConfigKey('TokenConfigs:EnableCookieAuth')
  @IsBoolean()
  enableCookieAuth: boolean = false;

  @ConfigKey('TokenConfigs:CookieName')
  @IsString()
  @IsNotEmpty()
  cookieName: string = 'AuthToken';

  @ConfigKey('TokenConfigs:CookieSameSite')
  @IsIn(['Strict', 'Lax', 'None'])
  cookieSameSite: string = 'Lax';
}

/** Hosting keys of spec 3: API version, multi-tenancy, quota, license middleware. */
export class IdentityHostSettings {
  @ConfigKey('ApiVersioning:DefaultApiVersion')
  @IsString()
  @IsNotEmpty()
  defaultApiVersion: string = '1';

  @ConfigKey('MultiTenantConfigs:Enabled')
  @IsBoolean()
  multiTenantEnabled: boolean = false;

  @ConfigKey('MultiTenantConfigs:RequireTenantClaimForAuthenticatedUser')
  @IsBoolean()
  requireTenantClaim: boolean = false;

  @ConfigKey('Quota:DefaultLimit')
  @IsInt()
  @Min(0)
  quotaDefaultLimit: number = 1000;

  @ConfigKey('License:EnforceOnMiddleware')
  @IsBoolean()
  licenseEnforceOnMiddleware: boolean = false;

  @ConfigKey('License:FilePath')
  @IsString()
  licenseFilePath: string = '';
}

/** `VaultConfigs:*`: the secret provider (`Configuration` reads config and environment; `Vault` is KV v2). */
export class VaultSettings {
  @ConfigKey('VaultConfigs:Type')
  @IsIn(['Configuration', 'Vault'])
  type: string = 'Configuration';

  @ConfigKey('VaultConfigs:Address')
  @IsString()
  address: string = '';

  @ConfigKey('VaultConfigs:Token')
  @IsString()
  token: string = '';

  @ConfigKey('VaultConfigs:Namespace')
  @IsString()
  namespace: string = '';

  @ConfigKey('VaultConfigs:SecretsPath')
  @IsString()
  secretsPath: string = '';

  @ConfigKey('VaultConfigs:AuthMethod')
  @IsString()
  authMethod: string = 'Token';

  @ConfigKey('VaultConfigs:TlsSkipVerify')
  @IsBoolean()
  tlsSkipVerify: boolean = false;

  @ConfigKey('VaultConfigs:RequestTimeoutSeconds')
  @IsInt()
  @Min(1)
  requestTimeoutSeconds: number = 10;

  @ConfigKey('VaultConfigs:CacheDurationMinutes')
  @IsInt()
  @Min(0)
  cacheDurationMinutes: number = 5;
}

/**
 * `IdentityAuth:*` (ours; the spec leaves these open): registration, the bootstrap administrator,
 * login brute-force protection, clock tolerance, denylist bootstrap.
 */
export class IdentityAuthSettings {
  /**
   * `POST /api/v1/auth/register` open to anonymous callers. Off unless configured (the Development
   * configuration file turns it on): an open registration hands out accounts to anyone who asks.
   */
  @ConfigKey('IdentityAuth:AllowSelfRegistration')
  @IsBoolean()
  allowSelfRegistration: boolean = false;

  /**
   * Tenants anyone may join by self-registration (comma-separated), as a user without roles. Any other
   * tenant accepts a self-registration only while it has no user yet: nobody joins an existing tenant
   * without its administrator (who creates the account with `POST /api/v1/users`).
   */
  @ConfigKey('IdentityAuth:SelfRegistrationTenants')
  @IsString()
  selfRegistrationTenants: string = '';

  /** The open tenants of `SelfRegistrationTenants`. */
  openTenants(): string[] {
    return this.selfRegistrationTenants
      .split(',')
      .map((t) => t.trim())
      .filter(Boolean);
  }

  /** Seeded at startup (with role `Admin`, permission `*`) when both are set and the user does not exist. */
  @ConfigKey('IdentityAuth:BootstrapAdminUserName')
  @IsString()
  bootstrapAdminUserName: string = '';

  @ConfigKey('IdentityAuth:BootstrapAdminPassword')
  @IsString()
  bootstrapAdminPassword: string = '';

  @ConfigKey('IdentityAuth:BootstrapAdminTenant')
  @IsString()
  @IsNotEmpty()
  bootstrapAdminTenant: string = 'default';

  /** Brute-force protection (on by default): attempts per account (per tenant) before a lockout. */
  @ConfigKey('IdentityAuth:LoginMaxFailures')
  @IsInt()
  @Min(1)
  loginMaxFailures: number = 5;

  /** First lockout; doubles with each further failure. */
  @ConfigKey('IdentityAuth:LoginLockoutSeconds')
  @IsInt()
  @Min(1)
  loginLockoutSeconds: number = 30;

  @ConfigKey('IdentityAuth:LoginMaxLockoutSeconds')
  @IsInt()
  @Min(1)
  loginMaxLockoutSeconds: number = 900;

  /** Attempts per client address (any account) before the address is locked out the same way. */
  @ConfigKey('IdentityAuth:LoginMaxFailuresPerAddress')
  @IsInt()
  @Min(1)
  loginMaxFailuresPerAddress: number = 50;

  /** Failed attempts older than this are forgotten (and their rows pruned). */
  @ConfigKey('IdentityAuth:LoginFailureWindowSeconds')
  @IsInt()
  @Min(1)
  loginFailureWindowSeconds: number = 900;

  /** Allowed clock skew when checking `exp`/`nbf` (capped at 15). */
  @ConfigKey('IdentityAuth:ClockToleranceSeconds')
  @IsInt()
  @Min(0)
  @Max(15)
  clockToleranceSeconds: number = 5;

  /**
   * Origins (comma-separated, e.g. `https://console.example.com`) besides identity's own that may send
   * cookie-authenticated writes (with `TokenConfigs:EnableCookieAuth`). Each one can act for any user
   * whose browser visits it: list only your own front ends.
   */
  @ConfigKey('IdentityAuth:TrustedOrigins')
  @IsString()
  trustedOrigins: string = '';

  /**
   * Service keys (comma-separated `sha256:<hex>` of each key) of the other services: presented as
   * `X-Api-Key` they read every tenant's denylist at `GET /api/v1/auth/revocations` and nothing else.
   */
  @ConfigKey('IdentityAuth:ServiceApiKeys')
  @IsString()
  serviceApiKeys: string = '';

  /** Minimum password length (argon2id hashes; at most 256 characters accepted). */
  @ConfigKey('IdentityAuth:MinPasswordLength')
  @IsInt()
  @Min(8)
  minPasswordLength: number = 8;
}

export const IDENTITY_SETTINGS = [
  ExperienceSettings,
  IdentityAuthSettings,
  IdentityConnectionStrings,
  LicenseServerSettings,
  TokenSettings,
  IdentityHostSettings,
  VaultSettings,
];
