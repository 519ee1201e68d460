/**
 * @arbiter/rule-engine — decision-table compiler (index + hit policies) and table analysis.
 * Pure TypeScript on top of @arbiter/feel: no Nest, no I/O.
 */
export * from './types';
export * from './errors';
export * from './bitset';
export * from './cell-shape';
export * from './matcher';
export * from './hit-policy';
export * from './input-types';
export * from './definition';
export * from './compile';
export * from './analysis';
export * from './validate';
