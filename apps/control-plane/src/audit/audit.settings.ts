import {
  ConfigKey,
  ConfigurationError,
  EnvironmentName,
  isDevelopmentOrTesting,
  StartupRules,
} from '@arbiter/platform';
import { IsString } from 'class-validator';
import { createPrivateKey } from 'node:crypto';
import { readFileSync } from 'node:fs';

/** `RuleControlPlane:Audit*`: the key that signs audit entries (required outside Development/Testing). */
export class AuditSigningSettings implements StartupRules {
  /**
   * The control plane's database, read only to tell an in-memory one (`pglite://memory`): a key
   * generated for it is kept in memory too, never written beside a database that does not outlive it.
   */
  @ConfigKey('ConnectionStrings:RuleControlPlaneDb')
  @IsString()
  ruleControlPlaneDb = '';

  @ConfigKey('RuleControlPlane:AuditSignerKeyId')
  @IsString()
  auditSignerKeyId = 'audit-key-1';

  @ConfigKey('RuleControlPlane:AuditPrivateKeyPemPath')
  @IsString()
  auditPrivateKeyPemPath = '';

  assertStartupRules(environment: EnvironmentName): void {
    const key = 'RuleControlPlane:AuditPrivateKeyPemPath';
    if (this.auditPrivateKeyPemPath.trim()) {
      // Set in any environment: it must be a readable RSA private key (checked before anything starts).
      let type: string | undefined;
      try {
        type = createPrivateKey(readFileSync(this.auditPrivateKeyPemPath, 'utf8')).asymmetricKeyType;
      } catch (error) {
        throw new ConfigurationError(
          `${key} points to '${this.auditPrivateKeyPemPath}', which is missing or unreadable, or not a PEM private key (${(error as Error).message})`,
          [key],
        );
      }
      if (type !== 'rsa')
        throw new ConfigurationError(`${key} must hold an RSA private key (got ${type})`, [key]);
      return;
    }
    if (isDevelopmentOrTesting(environment)) return;
    throw new ConfigurationError(
      `${key} is required outside Development and Testing (environment: ${environment})`,
      [key],
    );
  }
}

/** Settings classes (`@ConfigKey`) of this module; assembled by the app module. */
export const AUDIT_SETTINGS: (new () => object)[] = [AuditSigningSettings];
