#!/usr/bin/env node
/**
 * In-process flow benchmark: the 10-node flow of bench/control-plane/flow-10.js (FEEL conditions, a
 * 20-row `First` decision table, FEEL expressions, a Liquid template; one path runs 8 of the 10 nodes)
 * compiled once by @arbiter/rule-engine's `compileFlowGraph` and evaluated one call at a time on one
 * core, as the execution service does (each call awaited). Prints executions/s and the latency
 * percentiles, without traces (client traffic) and with per-node traces (dry-run).
 *
 *   npm run bench:flow            (builds @arbiter/rule-engine first)
 *   SECONDS=5 node bench/flow/run.js
 *
 * Target (issue "Rule execution"): at least 200,000 executions/s on one core.
 */
const { compileFlowGraph } = require('../../libs/rule-engine/dist');
const { flow10, applicants } = require('../control-plane/flow-10');

const SECONDS = Number(process.env.SECONDS ?? 3);

function percentile(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

async function measure(label, flow, facts, options) {
  // warm-up: one second of calls, so V8 has optimised the closures before anything is timed
  const warm = Date.now() + 1000;
  for (let i = 0; Date.now() < warm; i++) await flow.evaluate(facts[i % facts.length], options);
  const samples = new Float64Array(5_000_000);
  let n = 0;
  const started = process.hrtime.bigint();
  const until = started + BigInt(SECONDS * 1e9);
  let now = started;
  while (now < until) {
    // time batches of 64 calls (hrtime per call would dominate a microsecond-scale call)
    for (let i = 0; i < 64; i++) await flow.evaluate(facts[(n * 64 + i) % facts.length], options);
    const after = process.hrtime.bigint();
    if (n < samples.length) samples[n] = Number(after - now) / 64 / 1000;
    n++;
    now = after;
  }
  const elapsedS = Number(now - started) / 1e9;
  const calls = n * 64;
  const sorted = Array.from(samples.subarray(0, Math.min(n, samples.length))).sort((a, b) => a - b);
  return {
    label,
    perSecond: Math.round(calls / elapsedS),
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
  };
}

async function main() {
  const flow = await compileFlowGraph(flow10());
  const facts = applicants(1024);
  const sample = await flow.evaluate(facts[3]);
  if (sample.errors.length) throw new Error(`the flow failed: ${JSON.stringify(sample.errors)}`);
  console.log(`10-node flow, ${sample.rulesExecuted} nodes on the sample path; outputs:`, sample.outputs);
  console.log(`node ${process.version}, ${SECONDS} s per run, one call at a time (each awaited)\n`);

  const rows = [
    await measure('client traffic (trace: false)', flow, facts, { trace: false }),
    await measure('with per-node traces', flow, facts, { trace: true }),
    await measure('side effects off (shadow/dry-run)', flow, facts, { trace: false, sideEffects: false }),
  ];
  console.log(
    'run                                   executions/s   µs/call p50   µs/call p99 (of 64-call batches)',
  );
  for (const r of rows)
    console.log(
      `${r.label.padEnd(38)}${String(r.perSecond.toLocaleString('en-US')).padStart(12)}` +
        `${r.p50.toFixed(2).padStart(14)}${r.p99.toFixed(2).padStart(14)}`,
    );
  const target = 200_000;
  const verdict = rows[0].perSecond >= target ? 'met' : 'NOT met';
  console.log(`\ntarget ≥ ${target.toLocaleString('en-US')} executions/s on one core: ${verdict}`);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
