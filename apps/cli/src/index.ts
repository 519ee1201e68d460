export * from './commands/start';
export * from './commands/experience';
