export * from './tool';
export * from './tool-registry';
export * from './tool-protocol-server';
export * from './tool-protocol.controller';
