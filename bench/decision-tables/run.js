#!/usr/bin/env node
/**
 * Decision-table benchmark: @arbiter/rule-engine vs a naive closure-per-cell scan vs @gorules/zen-engine
 * (installed here on demand, never in the root lockfile). Prints evaluations/s and p99 per table.
 *   node bench/decision-tables/run.js        (after `npx turbo run build --filter=@arbiter/rule-engine`)
 */
const { execSync } = require('node:child_process');
const path = require('node:path');
const { compileDecisionTable } = require('../../libs/rule-engine/dist');
const { compileUnaryTests } = require('../../libs/feel/dist');

function loadZen() {
  try {
    return require(path.join(__dirname, 'node_modules/@gorules/zen-engine'));
  } catch {
    try {
      // one command: a second `--no-save` install would remove the first package again
      execSync(
        'npm install --no-package-lock --no-save --omit=optional @gorules/zen-engine@0.54 @gorules/zen-engine-linux-x64-gnu@0.54',
        { cwd: __dirname, stdio: 'ignore' },
      );
      return require(path.join(__dirname, 'node_modules/@gorules/zen-engine'));
    } catch (e) {
      console.log(`(zen-engine unavailable: ${e.message.split('\n')[0]})`);
      return null;
    }
  }
}

let seed = 42;
const rnd = (n) => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) % n;
const COUNTRIES = ['NL', 'BE', 'DE', 'FR', 'US', 'UK', 'ES', 'IT'];
const TIERS = ['gold', 'silver', 'bronze'];

/** rows × 5 inputs: age range, country literal, amount comparison, tier literal, vip boolean */
function makeTable(rows, hitPolicy) {
  const r = [];
  for (let i = 0; i < rows; i++) {
    const lo = rnd(80);
    r.push({
      id: `r${i}`,
      inputConditions: {
        age: `[${lo}..${lo + 5 + rnd(20)}]`,
        country: rnd(3) === 0 ? '-' : `"${COUNTRIES[rnd(8)]}"`,
        amount: rnd(2) ? `>= ${rnd(10000)}` : `< ${rnd(10000)}`,
        tier: rnd(2) ? '-' : `"${TIERS[rnd(3)]}"`,
        vip: ['-', 'true', 'false'][rnd(3)],
      },
      outputs: { score: i },
    });
  }
  return {
    name: `t${rows}`,
    hitPolicy,
    inputColumns: [
      { name: 'age', type: 'number' },
      { name: 'country', type: 'string' },
      { name: 'amount', type: 'number' },
      { name: 'tier', type: 'string' },
      { name: 'vip', type: 'boolean' },
    ],
    outputColumns: [{ name: 'score', type: 'number' }],
    rows: r,
  };
}

function inputs(n) {
  const out = [];
  for (let i = 0; i < n; i++)
    out.push({
      age: rnd(100),
      country: COUNTRIES[rnd(8)],
      amount: rnd(10000),
      tier: TIERS[rnd(3)],
      vip: rnd(2) === 0,
    });
  return out;
}

/** naive baseline: one compiled FEEL closure per cell, scan every row */
function naive(def) {
  const cols = def.inputColumns.map((c) => c.name);
  const rows = def.rows.map((r) => ({
    tests: cols.map((c) =>
      r.inputConditions[c] && r.inputConditions[c] !== '-' ? compileUnaryTests(r.inputConditions[c]) : null,
    ),
    r,
  }));
  const first = def.hitPolicy === 'First';
  return (input) => {
    const hits = [];
    for (const row of rows) {
      let ok = true;
      for (let k = 0; k < cols.length && ok; k++)
        if (row.tests[k] && row.tests[k].test(input[cols[k]]) !== true) ok = false;
      if (ok) {
        hits.push(row.r.outputs);
        if (first) break;
      }
    }
    return hits;
  };
}

function toJdm(def) {
  const inputs = def.inputColumns.map((c, k) => ({ id: `i${k}`, name: c.name, field: c.name }));
  const outputs = [{ id: 'o0', name: 'score', field: 'score' }];
  const rules = def.rows.map((r) => {
    const rule = { _id: r.id };
    def.inputColumns.forEach((c, k) => {
      const cell = r.inputConditions[c.name] ?? '-';
      rule[`i${k}`] = cell === '-' ? '' : cell.replace(/^\[(\S+)\.\.(\S+)\]$/, '[$1..$2]');
    });
    rule.o0 = String(r.outputs.score);
    return rule;
  });
  return {
    nodes: [
      { id: 'in', type: 'inputNode', name: 'request', position: { x: 0, y: 0 } },
      {
        id: 'dt',
        type: 'decisionTableNode',
        name: 'table',
        position: { x: 100, y: 0 },
        content: { hitPolicy: def.hitPolicy === 'First' ? 'first' : 'collect', inputs, outputs, rules },
      },
      { id: 'out', type: 'outputNode', name: 'response', position: { x: 200, y: 0 } },
    ],
    edges: [
      { id: 'e1', sourceId: 'in', targetId: 'dt', type: 'edge' },
      { id: 'e2', sourceId: 'dt', targetId: 'out', type: 'edge' },
    ],
  };
}

function measureSync(fn, data, ms = 1500) {
  for (let i = 0; i < 2000; i++) fn(data[i % data.length]); // warm-up
  const lat = [];
  let n = 0;
  const start = process.hrtime.bigint();
  const end = start + BigInt(ms) * 1000000n;
  let now = start;
  while (now < end) {
    for (let i = 0; i < 100; i++) fn(data[(n + i) % data.length]);
    const t = process.hrtime.bigint();
    lat.push(Number(t - now) / 100);
    now = t;
    n += 100;
  }
  // per-call p99 measured separately on single calls
  const single = [];
  for (let i = 0; i < 20000; i++) {
    const t0 = process.hrtime.bigint();
    fn(data[i % data.length]);
    single.push(Number(process.hrtime.bigint() - t0));
  }
  single.sort((a, b) => a - b);
  return { perSec: n / (Number(now - start) / 1e9), p99us: single[Math.floor(single.length * 0.99)] / 1000 };
}

async function measureAsync(fn, data, ms = 1500) {
  let n = 0;
  const single = [];
  const start = process.hrtime.bigint();
  const end = start + BigInt(ms) * 1000000n;
  while (process.hrtime.bigint() < end) {
    const t0 = process.hrtime.bigint();
    await fn(data[n % data.length]);
    single.push(Number(process.hrtime.bigint() - t0));
    n++;
  }
  single.sort((a, b) => a - b);
  return {
    perSec: n / (Number(process.hrtime.bigint() - start) / 1e9),
    p99us: single[Math.floor(single.length * 0.99)] / 1000,
  };
}

const fmt = (r) =>
  r
    ? `${Math.round(r.perSec).toLocaleString('en-US').padStart(12)}/s  p99 ${r.p99us.toFixed(1).padStart(8)} µs`
    : '        n/a';

async function main() {
  const zen = loadZen();
  const engine = zen ? new zen.ZenEngine() : null;
  const data = inputs(1000);
  const tables = [
    ['20 rows × 5 inputs, First', makeTable(20, 'First')],
    ['1,000 rows, First', makeTable(1000, 'First')],
    ['1,000 rows, Collect', makeTable(1000, 'Collect')],
  ];
  console.log(`node ${process.version}, one core, evaluations one at a time\n`);
  for (const [label, def] of tables) {
    const compiled = compileDecisionTable(def);
    const ours = measureSync((i) => compiled.evaluate(i), data);
    const base = measureSync(naive(def), data);
    let z = null;
    if (engine) {
      const decision = engine.createDecision(toJdm(def));
      z = await measureAsync((i) => decision.evaluate(i), data);
    }
    console.log(label);
    console.log(`  rule-engine   ${fmt(ours)}`);
    console.log(`  naive scan    ${fmt(base)}   (rule-engine ×${(ours.perSec / base.perSec).toFixed(1)})`);
    console.log(
      `  zen-engine    ${fmt(z)}${z ? `   (rule-engine ×${(ours.perSec / z.perSec).toFixed(0)})` : ''}`,
    );
  }
  if (engine) engine.dispose?.();
  memory();
}

/** 10,000 tables of 100 rows compiled into the service's bounded LRU (DecisionTables:CompiledCacheSize). */
function memory() {
  const {
    CompiledTableCache,
  } = require('../../apps/decisions/dist/decision-tables/application/compiled-table-cache');
  const cache = new CompiledTableCache(Number(process.env.CACHE_SIZE ?? 1000));
  const mib = (n) => `${(n / 2 ** 20).toFixed(0)} MiB`;
  global.gc?.();
  const before = process.memoryUsage();
  for (let t = 0; t < 10000; t++) {
    const def = makeTable(100, 'First');
    cache.put('bench', `t${t}`, 1, compileDecisionTable(def), true);
  }
  global.gc?.();
  const after = process.memoryUsage();
  const m = cache.metrics();
  console.log(
    `\n10,000 tables × 100 rows through an LRU of ${m.capacity}: cached ${m.size}, evictions ${m.evictions}`,
  );
  console.log(
    `  rss ${mib(after.rss)} (+${mib(after.rss - before.rss)}), heap used ${mib(after.heapUsed)} (+${mib(after.heapUsed - before.heapUsed)})` +
      `${global.gc ? `, ≈ ${((after.heapUsed - before.heapUsed) / m.size / 1024).toFixed(0)} KiB per cached compiled table` : ' (run with --expose-gc for retained figures)'}`,
  );
}

module.exports = { makeTable, inputs };

if (require.main === module && process.argv[2] === 'memory') memory();
else if (require.main === module)
  main().catch((e) => {
    console.error(e);
    process.exit(1);
  });
