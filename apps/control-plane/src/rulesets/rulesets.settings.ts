import { ConfigKey } from '@arbiter/platform';
import { IsBoolean, IsIn, IsInt, IsString, Max, Min } from 'class-validator';

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

/**
 * `RuleControlPlane:RequireScenarioGate` (default false): a version is approved and activated only after
 * its scenario gate (decisions service, `POST /api/v1/scenarios/gate` with `workflow`) passed; asked over
 * the bus at approval and activation time.
 */
export class ScenarioGateSettings {
  @ConfigKey('RuleControlPlane:RequireScenarioGate')
  @IsBoolean()
  requireScenarioGate = false;

  /** Ours: how long approval/activation waits for the decisions service's answer. */
  @ConfigKey('RuleControlPlane:ScenarioGateTimeoutMs')
  @IsInt()
  @Min(100)
  @Max(60_000)
  timeoutMs = 5000;
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
export const RULESET_SETTINGS: (new () => object)[] = [
  ApprovalSettings,
  RuleStoreSettings,
  ScenarioGateSettings,
];
