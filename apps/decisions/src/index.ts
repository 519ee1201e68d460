export * from './service';
export * from './settings/decisions.settings';
