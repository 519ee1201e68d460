export * from './audit-chain';
export { canonicalJson } from './canonical-json';
