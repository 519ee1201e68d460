export * from './commands/start';
