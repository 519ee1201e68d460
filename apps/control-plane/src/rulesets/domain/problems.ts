/**
 * Merge shim: `Problem` and `formatProblem` live in `@arbiter/rule-engine` (`src/document/problems.ts`).
 * Application files being split in a parallel branch still import this path; import from
 * `@arbiter/rule-engine` instead and delete this file once they are merged.
 */
export { formatProblem, type Problem } from '@arbiter/rule-engine';
