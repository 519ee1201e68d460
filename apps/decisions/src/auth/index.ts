export * from './decisions-permissions';
