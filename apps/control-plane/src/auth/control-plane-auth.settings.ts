import { ConfigKey, ConfigurationError, StartupRules } from '@arbiter/platform';
import { signingKeyProblem } from '@arbiter/auth';
import { IsBoolean, IsInt, IsString, Max, Min } from 'class-validator';

/** `ControlPlaneAuth:*`: operator authentication (off by default, as the spec says). */
export class ControlPlaneAuthSettings implements StartupRules {
  @ConfigKey('ControlPlaneAuth:DisableAuthorization')
  @IsBoolean()
  disableAuthorization = true;

  /** PEM public key or certificate (RS256), or the HMAC secret identity signs with when `UseRsa` is false. */
  @ConfigKey('ControlPlaneAuth:SigningKey')
  @IsString()
  signingKey = '';

  /** Extension: the `kid` the configured key must carry (empty: any). */
  @ConfigKey('ControlPlaneAuth:SigningKeyId')
  @IsString()
  signingKeyId = '';

  /** Extension: verify tokens against identity's JWKS instead of a shared key (wins over SigningKey). */
  @ConfigKey('ControlPlaneAuth:JwksUrl')
  @IsString()
  jwksUrl = '';

  @ConfigKey('ControlPlaneAuth:Issuer')
  @IsString()
  issuer = '';

  @ConfigKey('ControlPlaneAuth:Audience')
  @IsString()
  audience = '';

  /** Extension: identity's denylist endpoint; default `/api/v1/auth/revocations` on the JWKS URL's origin. */
  @ConfigKey('ControlPlaneAuth:RevocationsUrl')
  @IsString()
  revocationsUrl = '';

  /** Ours: a service key of identity (`IdentityAuth:ServiceApiKeys`), sent to load the denylist. */
  @ConfigKey('ControlPlaneAuth:RevocationsApiKey')
  @IsString()
  revocationsApiKey = '';

  /** Extension: allowed clock skew for `exp`/`nbf` (at most 15). */
  @ConfigKey('ControlPlaneAuth:ClockToleranceSeconds')
  @IsInt()
  @Min(0)
  @Max(15)
  clockToleranceSeconds = 5;

  /** Extension: external policy decision point (HTTP POST); empty = local role/permission check. */
  @ConfigKey('ControlPlaneAuth:PolicyDecisionPointUrl')
  @IsString()
  policyDecisionPointUrl = '';

  @ConfigKey('ControlPlaneAuth:PolicyDecisionPointTimeoutMs')
  @IsInt()
  @Min(100)
  policyDecisionPointTimeoutMs = 2000;

  assertStartupRules(): void {
    if (this.disableAuthorization) return;
    if (!this.signingKey.trim() && !this.jwksUrl.trim()) {
      throw new ConfigurationError(
        'ControlPlaneAuth:SigningKey (or ControlPlaneAuth:JwksUrl) is required when ControlPlaneAuth:DisableAuthorization is false',
        ['ControlPlaneAuth:SigningKey'],
      );
    }
    const keyProblem = !this.jwksUrl.trim() && signingKeyProblem(this.signingKey);
    if (keyProblem)
      throw new ConfigurationError(`ControlPlaneAuth:SigningKey ${keyProblem}`, [
        'ControlPlaneAuth:SigningKey',
      ]);
    for (const [key, value] of [
      ['ControlPlaneAuth:Issuer', this.issuer],
      ['ControlPlaneAuth:Audience', this.audience],
    ]) {
      if (!value.trim()) {
        throw new ConfigurationError(
          `${key} is required when ControlPlaneAuth:DisableAuthorization is false`,
          [key],
        );
      }
    }
  }
}

/** Settings classes (`@ConfigKey`) of this module; assembled by the app module. */
export const CONTROL_PLANE_AUTH_SETTINGS: (new () => object)[] = [ControlPlaneAuthSettings];
