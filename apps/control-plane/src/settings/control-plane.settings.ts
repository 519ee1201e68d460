import { ConfigKey, ConfigurationError, StartupRules } from '@arbiter/platform';
import { IsString } from 'class-validator';
import { AUDIT_SETTINGS } from '../audit';
import { CONTROL_PLANE_AUTH_SETTINGS } from '../auth';
import { CANARY_SETTINGS } from '../canary';
import { CATALOG_SETTINGS } from '../catalog';
import { COPILOT_SETTINGS } from '../copilot';
import { EXECUTION_SETTINGS } from '../execution';
import { EXECUTION_AUDIT_SETTINGS } from '../execution-audit';
import { HUB_SETTINGS } from '../hub';
import { QUOTA_SETTINGS } from '../quotas';
import { RULESET_SETTINGS } from '../rulesets';
import { RUNTIME_INFO_SETTINGS } from '../runtime-info';

/** `ConnectionStrings:*`: the database is required, the cache (NATS) optional. */
export class ConnectionStringsSettings implements StartupRules {
  @ConfigKey('ConnectionStrings:RuleControlPlaneDb')
  @IsString()
  ruleControlPlaneDb = '';

  @ConfigKey('ConnectionStrings:Cache')
  @IsString()
  cache = '';

  assertStartupRules(): void {
    if (!this.ruleControlPlaneDb.trim()) {
      throw new ConfigurationError('ConnectionStrings:RuleControlPlaneDb is required and is empty', [
        'ConnectionStrings:RuleControlPlaneDb',
      ]);
    }
  }
}

/**
 * Every settings class of the control plane: the app's own (the connection strings) and each
 * feature's, which the feature declares beside its code. The app module hands them to the foundation.
 */
export const CONTROL_PLANE_SETTINGS: (new () => object)[] = [
  ConnectionStringsSettings,
  ...RULESET_SETTINGS,
  ...HUB_SETTINGS,
  ...CANARY_SETTINGS,
  ...AUDIT_SETTINGS,
  ...CONTROL_PLANE_AUTH_SETTINGS,
  ...RUNTIME_INFO_SETTINGS,
  ...EXECUTION_SETTINGS,
  ...EXECUTION_AUDIT_SETTINGS,
  ...QUOTA_SETTINGS,
  ...CATALOG_SETTINGS,
  ...COPILOT_SETTINGS,
];
