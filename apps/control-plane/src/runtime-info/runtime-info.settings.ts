import { ConfigKey } from '@arbiter/platform';
import { IsArray, IsBoolean, IsIn, IsString } from 'class-validator';

/** `ControlPlaneRuntimeInfo:*`: what the public info endpoint reports. */
export class RuntimeInfoSettings {
  @ConfigKey('ControlPlaneRuntimeInfo:Version')
  @IsString()
  version = '';

  @ConfigKey('ControlPlaneRuntimeInfo:ActivationProof')
  @IsString()
  activationProof = '';

  @ConfigKey('ControlPlaneRuntimeInfo:Tier')
  @IsIn(['Free', 'Licensed', 'Enterprise'])
  tier = 'Free';

  @ConfigKey('ControlPlaneRuntimeInfo:IsValid')
  @IsBoolean()
  isValid = false;

  @ConfigKey('ControlPlaneRuntimeInfo:LicenseId')
  @IsString()
  licenseId = '';

  @ConfigKey('ControlPlaneRuntimeInfo:AllowedFeatures')
  @IsArray()
  @IsString({ each: true })
  allowedFeatures: string[] = [];
}

/** Settings classes (`@ConfigKey`) of this module; assembled by the app module. */
export const RUNTIME_INFO_SETTINGS: (new () => object)[] = [RuntimeInfoSettings];
