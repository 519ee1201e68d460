/**
 * @arbiter/scenarios — generated test scenarios for decision tables: a deterministic generator (boundary
 * values and equivalence classes read from every FEEL unary test, MC/DC pairs, missing and null inputs,
 * pairwise cross-row combinations, canonical-hash dedup), a runner over the engine the runtime uses
 * (@arbiter/rule-engine) with failure analysis and coverage, and a mutation run. Pure: no Nest, no I/O.
 */
export * from './types';
export * from './prng';
export * from './canonical';
export * from './literals';
export * from './probes';
export * from './pairwise';
export * from './table-model';
export * from './generate-table';
export * from './run-table';
export * from './mutation';
export * from './similarity';
export * from './workflow';
export * from './workflow-mutation';
export * from './worker/tasks';
