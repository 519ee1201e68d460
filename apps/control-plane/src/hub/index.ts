export { HubModule } from './hub.module';
export { HUB_SETTINGS, HubSettings } from './hub.settings';
export { HUB_PATHS, SignalRHub } from './signalr-hub';
