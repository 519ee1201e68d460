#!/usr/bin/env node
/**
 * Does anything an author sends stall a service? Starts decisions and the control plane in this process
 * (as `npm start` does: one event loop), then for each request below measures the largest event-loop
 * delay (`perf_hooks.monitorEventLoopDelay`) and the p99 / max wait of a `/health/live` probe sent every
 * 20 ms while it runs: a 10,000-row table created, validated, first evaluated, analysed and updated; and
 * each hostile dry-run of issue 28 (FEEL loop, `while(true){}`, an allocation loop, a native loop), a saved
 * FEEL loop executed, and a 10,000-rule rule set saved, activated and executed for the first time.
 *   npm run bench:decision-tables:stalls       (ROWS=10000 override)
 * The machine is shared: an idle line ("idle 2 s") is printed first as the floor of that run.
 */
const { monitorEventLoopDelay } = require('node:perf_hooks');
const { startDecisions } = require('../../apps/decisions/dist');
const { startControlPlane } = require('../../apps/control-plane/dist');
const { makeTable } = require('./run');

const ROWS = Number(process.env.ROWS ?? 10_000);
const silent = { 'Logging:Level': 'silent' };

async function measure(label, baseUrl, work) {
  const waits = [];
  const pending = [];
  let done = false;
  let timer;
  const tick = (due) => {
    if (done) return;
    const sent = performance.now();
    const late = Math.max(0, sent - due);
    pending.push(
      fetch(`${baseUrl}/health/live`).then(async (r) => {
        await r.arrayBuffer();
        waits.push(late + performance.now() - sent);
      }),
    );
    timer = setTimeout(() => tick(sent + 20), 20);
  };
  const delay = monitorEventLoopDelay({ resolution: 5 });
  delay.enable();
  const started = performance.now();
  timer = setTimeout(() => tick(started + 20), 20);
  let outcome;
  try {
    outcome = await work();
  } finally {
    done = true;
    clearTimeout(timer);
    delay.disable();
  }
  const elapsed = performance.now() - started;
  await Promise.all(pending);
  waits.sort((a, b) => a - b);
  const p99 = waits[Math.min(waits.length - 1, Math.floor(waits.length * 0.99))] ?? 0;
  console.log(
    `${label.padEnd(58)} ${elapsed.toFixed(0).padStart(7)} ms   loop delay max ${(delay.max / 1e6).toFixed(0).padStart(6)} ms` +
      `   /health/live p99 ${p99.toFixed(0).padStart(6)} ms, max ${(waits[waits.length - 1] ?? 0).toFixed(0).padStart(6)} ms` +
      `${outcome ? `   ${outcome}` : ''}`,
  );
}

async function main() {
  const decisions = await startDecisions({
    environment: 'Testing',
    env: {},
    port: 0,
    host: '127.0.0.1',
    overrides: {
      'ConnectionStrings:DecisionTablesDb': 'pglite://memory',
      'Http:BodyLimitBytes': 64 * 2 ** 20,
      'DecisionTables:MaxRows': 100_000,
      ...silent,
    },
  });
  const cp = await startControlPlane({
    environment: 'Testing',
    env: {},
    port: 0,
    host: '127.0.0.1',
    overrides: {
      'ConnectionStrings:RuleControlPlaneDb': 'pglite://memory',
      'RuleControlPlane:RequireApproval': false,
      'Http:BodyLimitBytes': 64 * 2 ** 20,
      ...silent,
    },
  });
  const headers = { 'content-type': 'application/json', 'x-tenant-id': 'bench', 'x-actor': 'bench' };
  const post = async (base, path, body, method = 'POST') => {
    const res = await fetch(base + path, { method, headers, body: JSON.stringify(body) });
    const json = await res.json().catch(() => null);
    return { status: res.status, json };
  };
  const dt = `${decisions.url}/api/v1/decision-tables`;
  console.log(
    `node ${process.version}; ${ROWS} rows × 5 inputs; services in one process, probe every 20 ms\n`,
  );
  await measure(
    'idle 2 s (the floor of this run)',
    decisions.url,
    () => new Promise((r) => setTimeout(r, 2000)),
  );
  await post(dt, '/validate', makeTable(5, 'First')); // load the code paths
  const table = makeTable(ROWS, 'First');
  let id;
  await measure(`create a ${ROWS}-row table`, decisions.url, async () => {
    const r = await post(dt, '', table);
    id = r.json?.id;
    return `HTTP ${r.status}`;
  });
  await new Promise((r) => setTimeout(r, 3000)); // the compile after the response
  await measure(
    'validate it',
    decisions.url,
    async () => `HTTP ${(await post(dt, '/validate', table)).status}`,
  );
  const input = { age: 30, country: 'NL', amount: 5000, tier: 'gold', vip: true };
  await measure(
    'first evaluate',
    decisions.url,
    async () => `HTTP ${(await post(dt, `/${id}/evaluate`, { input })).status}`,
  );
  await measure(
    'analyze the stored version',
    decisions.url,
    async () => `HTTP ${(await post(dt, `/${id}/analyze`, {})).status}`,
  );
  table.rows[0].outputs.score = -1;
  await measure(
    'update it',
    decisions.url,
    async () => `HTTP ${(await post(dt, `/${id}`, table, 'PUT')).status}`,
  );
  await new Promise((r) => setTimeout(r, 3000));
  await measure(
    'first evaluate after the update',
    decisions.url,
    async () => `HTTP ${(await post(dt, `/${id}/evaluate`, { input })).status}`,
  );

  const flow = (config) => ({
    type: 'flow-graph',
    schemaVersion: 1,
    start: 'js',
    nodes: [{ id: 'js', kind: 'javascript-condition', config }],
  });
  const hostile = [
    [
      'dry-run: FEEL sum(for i in 1..100000 …) > 0',
      {
        rules: [
          {
            id: 'l',
            name: 'Loop',
            condition: 'sum(for i in 1..100000 return sum(for j in 1..1000 return j)) > 0',
            output: { hit: true },
          },
        ],
      },
    ],
    ['dry-run: while(true){} with timeoutMs 10000', flow({ script: 'while(true){}', timeoutMs: 10000 })],
    [
      'dry-run: allocation loop (native fill)',
      flow({ script: 'var a=[]; while(true){a.push(new Array(100000).fill(1));}' }),
    ],
    [
      'dry-run: includes.call({length: 1e15})',
      flow({ script: 'return Array.prototype.includes.call({length: 1e15}, 1);', timeoutMs: 10000 }),
    ],
  ];
  for (const [label, ruleSet] of hostile)
    await measure(label, cp.url, async () => {
      const r = await post(cp.url, '/api/v1/rule-engine/rulesets/bench/dry-run', {
        ruleSet,
        context: { amount: 1 },
      });
      return `HTTP ${r.status} ${(r.json?.errors ?? []).map((e) => e.code).join(',')}`;
    });
  // saved content: a FEEL loop saved and activated, then executed; a 10,000-rule rule set saved, activated
  // and executed for the first time
  const cpPost = (path, body) => post(cp.url, path, body);
  await cpPost('/api/v1/rule-engine/rulesets/loop', { ruleSet: hostile[0][1], activateAfterSave: true });
  await measure('execute a saved FEEL loop (activated)', cp.url, async () => {
    const r = await cpPost('/api/v1/rule-engine/execute/loop', { facts: { amount: 1 } });
    return `HTTP ${r.status} ${(r.json?.errors ?? []).map((e) => e.code).join(',')}`;
  });
  const rules = Array.from({ length: 10_000 }, (_, i) => ({
    id: `r${i}`,
    name: `Rule ${i}`,
    condition: `amount > ${i} and country = "NL"`,
    output: { [`band${i % 50}`]: i },
  }));
  await measure('save a 10,000-rule rule set', cp.url, async () => {
    const r = await cpPost('/api/v1/rule-engine/rulesets/big', { ruleSet: { rules } });
    return `HTTP ${r.status}`;
  });
  await measure('activate it', cp.url, async () => {
    const r = await cpPost('/api/v1/rule-engine/rulesets/big/activate/1', {});
    return `HTTP ${r.status}`;
  });
  await measure('first execute of it', cp.url, async () => {
    const r = await cpPost('/api/v1/rule-engine/execute/big', { facts: { amount: 5000, country: 'NL' } });
    return `HTTP ${r.status} ${r.json?.status}`;
  });
  await cp.stop?.();
  await decisions.stop?.();
  process.exit(0);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
