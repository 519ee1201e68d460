#!/usr/bin/env node
/**
 * `npm run tck`: runs the DMN TCK from ../shared/dmn-tck/TestCases (or $TCK_DIR), prints per-directory and total
 * figures, writes a JSON report (tck-report.json at the repo root, or $TCK_REPORT) and exits 0 (it is a report).
 * Exits 2 when the TCK directory is missing. Optional: TCK_FILTER=<regex> to run matching directories only.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { runTck } from './runner';

function main(): number {
  const repoRoot = resolve(__dirname, '..', '..', '..'); // tools/tck/dist -> the checkout
  const tckDir = resolve(process.env.TCK_DIR ?? join(repoRoot, '..', 'shared', 'dmn-tck', 'TestCases'));
  if (!existsSync(tckDir)) {
    console.error(`TCK directory not found: ${tckDir} (set TCK_DIR)`);
    return 2;
  }
  const filter = process.env.TCK_FILTER ? new RegExp(process.env.TCK_FILTER) : undefined;
  const report = runTck(tckDir, filter);
  const w = Math.max(...report.directories.map((d) => d.directory.length), 10);
  console.log(`DMN TCK — ${tckDir}`);
  console.log(`${'directory'.padEnd(w)}  level  feel  passed  failed  not run`);
  for (const d of report.directories) {
    console.log(
      `${d.directory.padEnd(w)}  ${d.level.replace('compliance-level-', 'L')}     ${d.feelFocused ? 'yes ' : '    '}  ${String(d.passed).padStart(6)}  ${String(d.failed).padStart(6)}  ${String(d.notRun).padStart(7)}`,
    );
  }
  const t = report.totals;
  const f = report.feelFocused;
  const pct = (p: number, all: number) => (all ? ((100 * p) / all).toFixed(1) : '0.0');
  console.log('');
  console.log(
    `Total: ${t.passed} passed / ${t.failed} failed / ${t.notRun} not run (${pct(t.passed, t.passed + t.failed + t.notRun)}% passed)`,
  );
  console.log(
    `FEEL-focused (${f.directories} directories): ${f.passed} passed / ${f.failed} failed / ${f.notRun} not run (${pct(f.passed, f.passed + f.failed + f.notRun)}% passed)`,
  );
  const out = resolve(process.env.TCK_REPORT ?? join(repoRoot, 'tck-report.json'));
  try {
    writeFileSync(out, JSON.stringify(report, null, 2));
    console.log(`Report: ${out}`);
  } catch (e) {
    console.error(`could not write report: ${(e as Error).message}`);
  }
  console.log(`TCK: ${t.passed} passed, ${t.failed + t.notRun} failed`);
  return 0;
}

process.exitCode = main();
