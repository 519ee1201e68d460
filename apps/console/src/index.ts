export * from './console-server';
