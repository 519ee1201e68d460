export * from './service';
export * from './settings/control-plane.settings';
export { InMemoryRuleRegistry, RuleRegistry, RuleSetCache, REVISION_POLL_MS } from './rulesets';
export { FLOW_GRAPH_SCHEMA, validateFlowGraph, validateRuleSet } from '@arbiter/rule-engine';
