export { canonicalJson } from './canonical-json';
export * from './keys';
export * from './signed-document';
export * from './documents';
export * from './features';
export * from './license-key';
export * from './clock';
export * from './verify';
