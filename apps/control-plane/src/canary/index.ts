export { CanaryModule } from './canary.module';
export { CANARY_SETTINGS, CanarySettings } from './canary.settings';
export { CanaryRouter, type CanaryRoute } from './application/canary-router';
export { CANARY_ENTITIES } from './entities';
export { CanaryErrorFamily, CanaryErrors } from './application/canary-errors';
