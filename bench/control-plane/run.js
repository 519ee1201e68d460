#!/usr/bin/env node
/*
 * Control-plane latency benchmark: p50/p99 of save (POST /api/v1/rule-engine/rulesets/{wf}/save) while
 * a workflow grows to 1,000 versions, then of the list routes with 1,000 versions stored
 * (GET /api/v1/rule-engine/rulesets, GET …/{wf}/versions?limit=50, GET …/{wf}/versions?limit=500).
 *
 *   npm run bench:control-plane                       # embedded PGlite (pglite://memory)
 *   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/bench npm run bench:control-plane
 *
 * Sequential requests over real HTTP (one client), signed audit included: these are end-to-end
 * latencies of one operator, not throughput.
 */
const { performance } = require('node:perf_hooks');
const { startControlPlane } = require('../../apps/control-plane/dist');

const VERSIONS = Number(process.env.BENCH_VERSIONS ?? 1000);
const LIST_SAMPLES = Number(process.env.BENCH_LIST_SAMPLES ?? 300);

function stats(samples) {
  const s = [...samples].sort((a, b) => a - b);
  const q = (p) => s[Math.min(s.length - 1, Math.floor(p * s.length))];
  return { n: s.length, p50: q(0.5), p99: q(0.99), max: s[s.length - 1] };
}

const fmt = (ms) => `${ms.toFixed(2)} ms`;

async function main() {
  const db = process.env.BENCH_DATABASE_URL?.trim() || 'pglite://memory';
  const service = await startControlPlane({
    environment: 'Testing',
    env: { ARBITER_LOG_LEVEL: 'error' },
    port: 0,
    host: '127.0.0.1',
    overrides: {
      'ConnectionStrings:RuleControlPlaneDb': db,
      'RuleControlPlane:RequireApproval': false,
      'Logging:Level': 'error',
    },
  });
  const headers = { 'content-type': 'application/json', 'x-tenant-id': 'bench', 'x-actor': 'bench' };
  const call = async (method, path, body) => {
    const t0 = performance.now();
    const res = await fetch(`${service.url}${path}`, {
      method,
      headers,
      body: body ? JSON.stringify(body) : undefined,
    });
    await res.arrayBuffer();
    const ms = performance.now() - t0;
    if (res.status !== 200) throw new Error(`${method} ${path} → ${res.status}`);
    return ms;
  };
  const rules = (i) => ({
    rules: Array.from({ length: 20 }, (_, r) => ({
      id: `r${r}`,
      name: `Rule ${r}`,
      condition: `input.amount > ${r * 10 + i}`,
      output: { tier: `T${r}`, score: r * i },
    })),
    changeDescription: `version ${i}`,
  });
  try {
    // warm-up on another workflow
    for (let i = 0; i < 20; i++) await call('POST', '/api/v1/rule-engine/rulesets/warmup/save', rules(i));
    const saves = [];
    for (let i = 1; i <= VERSIONS; i++)
      saves.push(await call('POST', '/api/v1/rule-engine/rulesets/loans/save', rules(i)));
    const last100 = stats(saves.slice(-100));
    const list = [];
    const versions50 = [];
    const versions500 = [];
    for (let i = 0; i < LIST_SAMPLES; i++) {
      list.push(await call('GET', '/api/v1/rule-engine/rulesets'));
      versions50.push(await call('GET', '/api/v1/rule-engine/rulesets/loans/versions?limit=50'));
      if (i % 3 === 0)
        versions500.push(
          await call('GET', '/api/v1/rule-engine/rulesets/loans/versions?limit=500&offset=500'),
        );
    }
    const rows = [
      ['save (1 → 1,000 versions, 20 rules each)', stats(saves)],
      ['save (last 100, at ~1,000 versions)', last100],
      ['list GET /rulesets (1,000 versions stored)', stats(list)],
      ['list GET /{wf}/versions?limit=50', stats(versions50)],
      ['list GET /{wf}/versions?limit=500&offset=500', stats(versions500)],
    ];
    process.stdout.write(
      `control plane on ${db.startsWith('pglite') ? 'PGlite (embedded)' : 'PostgreSQL'}, node ${process.version}\n`,
    );
    process.stdout.write(
      `${'operation'.padEnd(48)} ${'n'.padStart(5)} ${'p50'.padStart(10)} ${'p99'.padStart(10)} ${'max'.padStart(10)}\n`,
    );
    for (const [name, s] of rows)
      process.stdout.write(
        `${name.padEnd(48)} ${String(s.n).padStart(5)} ${fmt(s.p50).padStart(10)} ${fmt(s.p99).padStart(10)} ${fmt(s.max).padStart(10)}\n`,
      );
  } finally {
    await service.close();
  }
}

main().then(
  () => process.exit(0),
  (error) => {
    process.stderr.write(`bench:control-plane failed: ${error.stack ?? error}\n`);
    process.exit(1);
  },
);
