import { ConfigKey } from '@arbiter/platform';
import { IsBoolean, IsIn, IsString } from 'class-validator';

/** `RuleControlPlane:RequireApproval`: maker-checker (a version needs an approval before activation). */
export class ApprovalSettings {
  @ConfigKey('RuleControlPlane:RequireApproval')
  @IsBoolean()
  requireApproval = true;

  /**
   * Ours: where an approval denial (`reject`) leads. `Draft` (default, the control-plane approval flow:
   * the version goes back to its author) or `Rejected` (the runtime lifecycle: terminal, never Active).
   * A reject with `final: true` leads to `Rejected` under either setting.
   */
  @ConfigKey('RuleControlPlane:ApprovalDenial')
  @IsIn(['Draft', 'Rejected'], { message: 'RuleControlPlane:ApprovalDenial must be Draft or Rejected' })
  approvalDenial: 'Draft' | 'Rejected' = 'Draft';
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
