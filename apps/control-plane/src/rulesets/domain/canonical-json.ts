/**
 * Re-export shim: canonical JSON lives in `@arbiter/audit-chain` (its one owner). Kept only because
 * ruleset-document.ts and flow-contract.spec.ts, which are moving to libs/rule-engine in a parallel
 * change, import it from here; delete it when they move.
 */
export { canonicalJson } from '@arbiter/audit-chain';
