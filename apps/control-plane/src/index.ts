export * from './service';
export * from './settings/control-plane.settings';
export { RuleSetsService } from './rulesets/application/rulesets.service';
export { InMemoryRuleRegistry, RuleRegistry } from './rulesets/domain/rule-registry';
export { FLOW_GRAPH_SCHEMA, validateFlowGraph, validateRuleSet } from '@arbiter/rule-engine';
export { canonicalJson } from './rulesets/domain/canonical-json';
export * from './rulesets/audit/audit-chain';
export { RuleSetCache, REVISION_POLL_MS } from './rulesets/application/ruleset-cache';
