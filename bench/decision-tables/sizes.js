#!/usr/bin/env node
/**
 * Decision tables at every size (issue 28): for 5, 10, 20, 50, 100, 1,000, 10,000 and 100,000 rows × 5
 * inputs, First and Collect: compile ms (first compile of that size in this process, and CPU ms), heap
 * per row of the compiled table, evaluations/s of the compiled table beside closures compiled from the
 * same cells and run by a plain row loop (the naive scan of run.js), after an equality gate: on 512
 * inputs both give the same matched rows.
 *   npm run bench:decision-tables:sizes         (SIZES=5,10,… MS=700 WARM_MS=200 ROUNDS=6 override)
 * Each line warms both up, then alternates them (ours, closures, ours, …) for ROUNDS rounds.
 * The machine is shared: read a ratio within its own line, never a figure against another run's.
 */
const { compileDecisionTable } = require('../../libs/rule-engine/dist');
const { compileUnaryTests } = require('../../libs/feel/dist');
const { makeTable, inputs } = require('./run');

const SIZES = (process.env.SIZES ?? '5,10,20,50,100,1000,10000,100000').split(',').map(Number);
const MS = Number(process.env.MS ?? 700);
const WARM_MS = Number(process.env.WARM_MS ?? 200);
const ROUNDS = Number(process.env.ROUNDS ?? 6);
const LIMITS = { maxRows: 100_000, maxColumns: 100, maxCellLength: 10_000 };

/** closures compiled from the same cells, a row loop (matched row indexes: First stops at the first) */
function closures(def) {
  const cols = def.inputColumns.map((c) => c.name);
  const rows = def.rows.map((r) =>
    cols.map((c) => {
      const cell = r.inputConditions[c];
      return cell && cell !== '-' ? compileUnaryTests(cell) : null;
    }),
  );
  const first = def.hitPolicy === 'First';
  return (input) => {
    const hits = [];
    for (let r = 0; r < rows.length; r++) {
      const tests = rows[r];
      let ok = true;
      for (let k = 0; k < tests.length && ok; k++)
        if (tests[k] && tests[k].test(input[cols[k]]) !== true) ok = false;
      if (ok) {
        hits.push(r);
        if (first) break;
      }
    }
    return hits;
  };
}

/** evaluations of `fn` over the inputs for about `ms` (wall clock): [count, ms] */
function run(fn, data, ms) {
  let n = 0;
  const start = performance.now();
  let now = start;
  while (now - start < ms) {
    for (let i = 0; i < 20; i++) fn(data[(n + i) % data.length]);
    n += 20;
    now = performance.now();
  }
  return [n, now - start];
}

/**
 * Evaluations/s of `a` and of `b`, measured fairly: both warmed up first (every size, not only the first
 * line, which would otherwise be charged the JIT's warm-up), then ROUNDS interleaved rounds (a, b, a, b, …)
 * so a burst of load from another process hits both.
 */
function compare(a, b, data) {
  for (let w = 0; w < 2; w++) {
    run(a, data, WARM_MS / 2);
    run(b, data, WARM_MS / 2);
  }
  const total = [0, 0, 0, 0];
  for (let r = 0; r < ROUNDS; r++) {
    const [na, ta] = run(a, data, MS / ROUNDS);
    const [nb, tb] = run(b, data, MS / ROUNDS);
    total[0] += na;
    total[1] += ta;
    total[2] += nb;
    total[3] += tb;
  }
  return [(total[0] / total[1]) * 1000, (total[2] / total[3]) * 1000];
}

const fmt = (n) => Math.round(n).toLocaleString('en-US');

function main() {
  const data = inputs(512);
  const load = () =>
    require('node:os')
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(', ');
  console.log(
    `node ${process.version}; ${MS} ms per measurement (${ROUNDS} interleaved rounds each, after ${WARM_MS} ms of warm-up each); load average ${load()}; shared machine: compare within a line\n` +
      'targets: 10,000-row compile ≤ 300 ms; ratio (ours / closures) ≥ 1.00 at every size; every line passed the 512-input equality gate\n',
  );
  console.log('rows     policy   compile ms (cpu)   heap/row   ours eval/s    closures eval/s   ratio');
  for (const size of SIZES) {
    for (const policy of ['First', 'Collect']) {
      const def = makeTable(size, policy);
      global.gc?.();
      const heap0 = process.memoryUsage().heapUsed;
      const cpu0 = process.cpuUsage();
      const t0 = performance.now();
      const compiled = compileDecisionTable(def, { limits: LIMITS });
      const compileMs = performance.now() - t0;
      const cpu = process.cpuUsage(cpu0);
      global.gc?.();
      const heapPerRow = (process.memoryUsage().heapUsed - heap0) / size;
      const scan = closures(def);
      // the equality gate: on all 512 inputs, at every size, both give the same matched rows
      for (const input of data) {
        const ours = compiled.evaluate(input).matchedRows.join();
        const theirs = scan(input)
          .map((r) => `r${r}`)
          .join();
        if (ours !== theirs) throw new Error(`${size} ${policy}: results differ on ${JSON.stringify(input)}`);
      }
      const [ours, base] = compare((i) => compiled.evaluate(i), scan, data);
      console.log(
        `${String(size).padEnd(8)} ${policy.padEnd(8)} ${compileMs.toFixed(1).padStart(9)} (${((cpu.user + cpu.system) / 1000).toFixed(0).padStart(5)})` +
          `${(global.gc ? `${heapPerRow.toFixed(0)} B` : 'n/a').padStart(11)}` +
          `${fmt(ours).padStart(15)}${fmt(base).padStart(18)}   ×${(ours / base).toFixed(2)}`,
      );
      globalThis.keep = compiled;
    }
  }
  console.log(`\nload average at end: ${load()}`);
}

main();
