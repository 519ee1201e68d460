/** @arbiter/tck — the DMN TCK runner (development only; `npm run tck` runs src/cli.ts). */
export { runTck, runDirectory, isFeelFocused } from './runner';
export type { TckReport, DirectoryResult, CaseResult } from './runner';
export { tckEquals, parseValueHolder } from './values';
