import type { RuleContract } from '@arbiter/rule-engine';

/** Contract source types: `rule` (catalog code), `decision-table`, `flow` (alias `workflow`). */
export const CONTRACT_SOURCE_TYPES = ['rule', 'decision-table', 'flow'] as const;
export type ContractSourceType = (typeof CONTRACT_SOURCE_TYPES)[number];

/** `workflow` → `flow`; case-insensitive; undefined for anything else. */
export function contractSourceType(raw: string): ContractSourceType | undefined {
  const value = raw.trim().toLowerCase();
  if (value === 'workflow') return 'flow';
  return (CONTRACT_SOURCE_TYPES as readonly string[]).includes(value)
    ? (value as ContractSourceType)
    : undefined;
}

/** A static fallback contract (`RuleCatalog:StaticContractsPath`). */
export interface StaticContract {
  sourceType: ContractSourceType;
  sourceCode: string;
  request: RuleContract;
  response: RuleContract;
}
