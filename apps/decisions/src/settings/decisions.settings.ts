import { ConfigKey, ConfigurationError, StartupRules } from '@arbiter/platform';
import { IsString } from 'class-validator';

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

/** `Authentication:Jwt:*` (spec 3): where API hosts get token keys from (identity's JWKS). */
export class JwtAuthenticationSettings {
  @ConfigKey('Authentication:Jwt:Authority')
  @IsString()
  authority: string = '';

  @ConfigKey('Authentication:Jwt:Audience')
  @IsString()
  audience: string = '';
}

export const DECISIONS_SETTINGS = [DecisionsConnectionStrings, JwtAuthenticationSettings];
