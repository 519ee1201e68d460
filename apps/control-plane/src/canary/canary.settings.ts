import { ConfigKey } from '@arbiter/platform';
import { IsBoolean } from 'class-validator';

/** `RuleControlPlane:EnableCanary`: false answers every canary route 404 `CANARY_DISABLED`. */
export class CanarySettings {
  @ConfigKey('RuleControlPlane:EnableCanary')
  @IsBoolean()
  enableCanary = true;
}

/** Settings classes (`@ConfigKey`) of this module; assembled by the app module. */
export const CANARY_SETTINGS: (new () => object)[] = [CanarySettings];
