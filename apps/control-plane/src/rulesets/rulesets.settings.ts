import { ConfigKey } from '@arbiter/platform';
import { IsBoolean, IsString } from 'class-validator';

/** `RuleControlPlane:RequireApproval`: maker-checker (a version needs an approval before activation). */
export class ApprovalSettings {
  @ConfigKey('RuleControlPlane:RequireApproval')
  @IsBoolean()
  requireApproval = true;
}

/** `RuleStoreConfigs:*`: file-backed store, runtime cache, change channel. */
export class RuleStoreSettings {
  @ConfigKey('RuleStoreConfigs:RootPath')
  @IsString()
  rootPath = '';

  @ConfigKey('RuleStoreConfigs:EnableRuntimeCache')
  @IsBoolean()
  enableRuntimeCache = true;

  @ConfigKey('RuleStoreConfigs:RuleChangeChannel')
  @IsString()
  ruleChangeChannel = 'rule-changes';
}

/** Settings classes (`@ConfigKey`) of this module; assembled by the app module. */
export const RULESET_SETTINGS: (new () => object)[] = [ApprovalSettings, RuleStoreSettings];
