export * from './service';
export * from './settings/control-plane.settings';
