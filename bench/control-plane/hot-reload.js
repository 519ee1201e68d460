#!/usr/bin/env node
/**
 * Hot-reload lag: two control-plane nodes share one PostgreSQL database and NATS. Node A activates a
 * new version (save with activateAfterSave, approval off); node B serves executions of the workflow in
 * a tight loop; the lag is the time from A's activation answer to the first execution on B that runs
 * the new version. 100 activations; prints the histogram and p50/p99/max, and B's own
 * `rule.cache.reload.lag` (from the change's occurredAt to its eviction on B).
 *
 *   npm run bench:hot-reload      (BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres,
 *                                  BENCH_NATS_URL=nats://127.0.0.1:4222 by default; ACTIVATIONS=100)
 */
const { Client } = require('pg');
const { startControlPlane } = require('../../apps/control-plane/dist');

const SERVER = process.env.BENCH_DATABASE_URL?.trim() || 'postgres://postgres@127.0.0.1:5432/postgres';
const NATS = process.env.BENCH_NATS_URL?.trim() || 'nats://127.0.0.1:4222';
const ACTIVATIONS = Number(process.env.ACTIVATIONS ?? 100);
const WORKFLOW = 'hot-reload';

async function admin(sql) {
  const client = new Client({ connectionString: SERVER });
  await client.connect();
  try {
    return await client.query(sql);
  } finally {
    await client.end();
  }
}

const doc = (n) => ({ rules: [{ id: 'r1', name: 'always', condition: 'true', output: { generation: n } }] });

async function main() {
  const dbName = `arbiter_hot_reload_${process.pid}`;
  await admin(`CREATE DATABASE ${dbName}`);
  const url = new URL(SERVER);
  url.pathname = `/${dbName}`;
  const node = () =>
    startControlPlane({
      environment: 'Testing',
      env: {},
      port: 0,
      host: '127.0.0.1',
      overrides: {
        'ConnectionStrings:RuleControlPlaneDb': url.toString(),
        'ConnectionStrings:Cache': NATS,
        'RuleControlPlane:RequireApproval': false,
        'Logging:Level': 'silent',
      },
    });
  const a = await node();
  const b = await node();
  const headers = { 'content-type': 'application/json', 'x-tenant-id': 'bench', 'x-actor': 'bench' };
  const post = async (base, path, body) => {
    const res = await fetch(base + path, { method: 'POST', headers, body: JSON.stringify(body) });
    const json = await res.json();
    if (!res.ok) throw new Error(`${path}: ${res.status} ${JSON.stringify(json)}`);
    return json;
  };
  const lags = [];
  try {
    await post(a.url, `/api/v1/rule-engine/rulesets/${WORKFLOW}`, {
      ruleSet: doc(0),
      activateAfterSave: true,
    });
    await post(b.url, `/api/v1/rule-engine/execute/${WORKFLOW}`, { facts: {} }); // B caches version 1
    for (let i = 1; i <= ACTIVATIONS; i++) {
      const saved = await post(a.url, `/api/v1/rule-engine/rulesets/${WORKFLOW}`, {
        ruleSet: doc(i),
        activateAfterSave: true,
      });
      const activatedAt = performance.now();
      for (;;) {
        const r = await post(b.url, `/api/v1/rule-engine/execute/${WORKFLOW}`, { facts: {} });
        if (r.version === saved.version) break;
        if (performance.now() - activatedAt > 20_000)
          throw new Error(`B still serves ${r.version} after 20 s`);
      }
      lags.push(performance.now() - activatedAt);
    }
    const sorted = [...lags].sort((x, y) => x - y);
    const q = (p) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
    const buckets = [1, 2, 5, 10, 20, 50, 100, 250, 1000, Infinity];
    console.log(`hot-reload lag over ${lags.length} activations (PostgreSQL + NATS, 2 nodes):`);
    let previous = 0;
    for (const edge of buckets) {
      const n = sorted.filter((x) => x > previous && x <= edge).length;
      console.log(
        `  ≤ ${String(edge === Infinity ? '∞' : edge).padStart(5)} ms  ${String(n).padStart(4)}  ${'#'.repeat(n)}`,
      );
      previous = edge;
    }
    console.log(
      `p50 ${q(0.5).toFixed(2)} ms   p99 ${q(0.99).toFixed(2)} ms   max ${sorted[sorted.length - 1].toFixed(2)} ms   (goal: p99 < 100 ms)`,
    );
    const metrics = await (await fetch(`${b.url}/api/v1/control-plane/metrics`, { headers })).json();
    console.log(
      `node B rule.cache.reload.lag (event occurredAt → eviction): ${JSON.stringify(metrics.hotReloadLagMs)}`,
    );
  } finally {
    await a.close();
    await b.close();
    await admin(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`).catch(() => undefined);
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
