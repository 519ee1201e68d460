export * from './app-error';
export * from './error-envelope';
export * from './all-exceptions.filter';
export * from './validation';
