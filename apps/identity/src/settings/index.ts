export * from './identity.settings';
