/** canonical JSON has one owner, @arbiter/audit-chain (the audit chain and licensing sign the same bytes) */
export { canonicalJson } from '@arbiter/audit-chain';
export * from './keys';
export * from './signed-document';
export * from './documents';
export * from './features';
export * from './license-key';
export * from './clock';
export * from './verify';
