/**
 * @arbiter/rule-engine — decision-table compiler (index + hit policies), table analysis, the rule set
 * document (shapes, the one validation used by save and compile, rules and their diff), and the rule
 * set evaluators (rules form and legacy workflows, code-based rules from the rule library, flow graphs
 * with one file per node kind, the JavaScript sandbox and Liquid templates), plus the shadow diff.
 * Pure TypeScript on top of @arbiter/feel: no Nest, no I/O of its own (ports bring stored tables,
 * sub flows and connectors in).
 */
export * from './types';
export * from './errors';
export * from './own';
export * from './bitset';
export * from './cell-shape';
export * from './matcher';
export * from './output-values';
export * from './hit-policy';
export * from './input-types';
export * from './fact-types';
export * from './definition';
export * from './compile';
export * from './analysis';
export * from './validate';
export * from './rulesets/types';
export * from './rulesets';
export * from './library';
export * from './templates';
export * from './sandbox';
export * from './document';
export * from './flow-graph';
export * from './rulesets/compile-ruleset';
export * from './worker/tasks';
export * from './yielding';
