#!/usr/bin/env node
/**
 * Scenario generator benchmark (issue 20 targets), in process on one core:
 *  1. generation + run of the scenarios of a 1,000-row table (target < 5 s);
 *  2. the mutation run of that table (target < 60 s);
 *  3. per decision table of the DMN TCK (/work/shared/dmn-tck/TestCases or TCK_DIR, read through
 *     @arbiter/dmn by the decisions service's DMN import): scenarios, row coverage, condition coverage,
 *     mutants and kill rate.
 *
 *   npm run bench:scenarios          (builds @arbiter/decisions and its libraries first)
 *   ROWS=2000 TCK_DIR=... node bench/scenarios/run.js
 */
const { readdirSync, readFileSync, statSync } = require('node:fs');
const { join, relative } = require('node:path');
const {
  buildTableModel,
  generateTableScenarios,
  mutationRun,
  runTableScenarios,
} = require('../../libs/scenarios/dist');
const { fromDmn } = require('../../apps/decisions/dist/decision-tables/formats/dmn');

const ROWS = Number(process.env.ROWS ?? 1000);
const TCK_DIR = process.env.TCK_DIR ?? '/work/shared/dmn-tck/TestCases';

/** n rows over two numeric columns (adjacent ranges, a threshold) and a string column; Unique. */
const { bigTable } = require('../../libs/scenarios/dist/fixtures');

const ms = (t) => `${t.toFixed(0)} ms`;

function big() {
  const table = bigTable(ROWS);
  const t0 = performance.now();
  const model = buildTableModel(table);
  const plan = generateTableScenarios(model, { seedRuleCode: table.name, seed: 1 });
  const t1 = performance.now();
  const report = runTableScenarios(model, plan.scenarios);
  const t2 = performance.now();
  console.log(
    `${ROWS}-row table: ${plan.scenarios.length} scenarios (${plan.duplicatesRemoved} duplicates removed)`,
  );
  console.log(`  generation ${ms(t1 - t0)} + run ${ms(t2 - t1)} = ${ms(t2 - t0)}   (target < 5000 ms)`);
  console.log(
    `  row coverage ${report.coverage.rows.percent} %, condition coverage ${report.coverage.conditions.percent} %, failed ${report.failed + report.errored}`,
  );
  const m = mutationRun(table, plan.scenarios);
  console.log(
    `  mutation run: ${m.mutants} mutants, ${m.killed} killed (${m.score} %), ${ms(m.duration)}   (target < 60000 ms)`,
  );
}

function* dmnFiles(dir) {
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* dmnFiles(path);
    else if (name.endsWith('.dmn')) yield path;
  }
}

function tck() {
  const rows = [];
  let skipped = 0;
  for (const file of dmnFiles(TCK_DIR)) {
    let tables;
    try {
      tables = fromDmn(readFileSync(file, 'utf8'));
    } catch {
      skipped++;
      continue;
    }
    for (const table of tables) {
      try {
        const model = buildTableModel(table);
        const plan = generateTableScenarios(model, { seedRuleCode: String(table.name), seed: 1 });
        const report = runTableScenarios(model, plan.scenarios);
        const m = mutationRun(table, plan.scenarios);
        rows.push({
          table: `${relative(TCK_DIR, file).split('/')[1]} / ${table.name}`,
          rows: report.coverage.rows.total,
          scenarios: plan.scenarios.length,
          rowCov: report.coverage.rows.percent,
          condCov: report.coverage.conditions.percent,
          mutants: m.mutants,
          killed: m.killed,
          score: m.score,
        });
      } catch (e) {
        skipped++;
        rows.push({
          table: `${relative(TCK_DIR, file)} / ${table.name}`,
          error: String(e.message).slice(0, 80),
        });
      }
    }
  }
  console.log(`\nTCK decision tables (${TCK_DIR}):`);
  console.log(
    'table | rows | scenarios | row coverage % | condition coverage % | mutants | killed | kill rate %',
  );
  for (const r of rows)
    console.log(
      r.error
        ? `${r.table} | not run: ${r.error}`
        : `${r.table} | ${r.rows} | ${r.scenarios} | ${r.rowCov} | ${r.condCov} | ${r.mutants} | ${r.killed} | ${r.score}`,
    );
  const ok = rows.filter((r) => !r.error);
  const full = ok.filter((r) => r.rowCov === 100).length;
  const mutants = ok.reduce((a, r) => a + r.mutants, 0);
  const killed = ok.reduce((a, r) => a + r.killed, 0);
  console.log(
    `\n${ok.length} tables run (${skipped} files/tables not run); 100 % row coverage: ${full}/${ok.length}; ` +
      `mutants killed overall: ${killed}/${mutants} (${mutants ? ((killed / mutants) * 100).toFixed(2) : 100} %); ` +
      `tables with kill rate >= 90 %: ${ok.filter((r) => r.score >= 90).length}/${ok.length}`,
  );
}

if (require.main === module) {
  big();
  tck();
}
