export { RuntimeInfoController } from './runtime-info.controller';
export { RUNTIME_INFO_SETTINGS, RuntimeInfoSettings } from './runtime-info.settings';
