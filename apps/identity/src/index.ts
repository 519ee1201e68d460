export * from './service';
export * from './settings/identity.settings';
