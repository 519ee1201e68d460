import { ConfigKey } from '@arbiter/platform';
import { IsBoolean } from 'class-validator';

/** `RuleControlPlane:NotifyOnStateChange`: whether the hub pushes changes to its clients. */
export class HubSettings {
  @ConfigKey('RuleControlPlane:NotifyOnStateChange')
  @IsBoolean()
  notifyOnStateChange = true;
}

/** Settings classes (`@ConfigKey`) of this module; assembled by the app module. */
export const HUB_SETTINGS: (new () => object)[] = [HubSettings];
