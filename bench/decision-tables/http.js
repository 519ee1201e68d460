#!/usr/bin/env node
/**
 * HTTP benchmark of `POST /api/v1/decision-tables/{id}/evaluate` (the 20-row × 5-input `First` table of
 * run.js) on the real decisions service (Testing environment, embedded PGlite, logs silent), side by side
 * with a bare Fastify route that answers a constant of the same size. Each server runs in its own child
 * process (one core), autocannon in this one (the other core); the two are measured in alternating rounds
 * and the best round of each is printed (the machine is shared). Prints requests/s and p99 for both.
 *   npm run bench:decision-tables:http      (DURATION=10 CONNECTIONS=100 WARMUP=3 ROUNDS=3 override)
 */
const { fork } = require('node:child_process');
const path = require('node:path');

const DURATION = Number(process.env.DURATION ?? 10);
const WARMUP = Number(process.env.WARMUP ?? 3);
const CONNECTIONS = Number(process.env.CONNECTIONS ?? 100);
const ROUNDS = Number(process.env.ROUNDS ?? 3);

// ------------------------------------------------------------------ child: one server
async function serve(kind) {
  process.on('SIGTERM', () => process.exit(0)); // a normal exit writes --cpu-prof profiles
  const { makeTable, inputs } = require('./run');
  const table = makeTable(20, 'First');
  const bodies = inputs(16).map((input) => JSON.stringify({ input }));
  if (kind === 'decisions') {
    const { startDecisions } = require('../../apps/decisions/dist');
    const service = await startDecisions({
      environment: 'Testing',
      env: {},
      port: 0,
      host: '127.0.0.1',
      overrides: { 'ConnectionStrings:DecisionTablesDb': 'pglite://memory', 'Logging:Level': 'silent' },
    });
    const headers = { 'content-type': 'application/json', 'x-tenant-id': 'bench' };
    const created = await fetch(`${service.url}/api/v1/decision-tables`, {
      method: 'POST',
      headers,
      body: JSON.stringify(table),
    });
    const { id } = await created.json();
    const sample = await (
      await fetch(`${service.url}/api/v1/decision-tables/${id}/evaluate`, {
        method: 'POST',
        headers,
        body: bodies[0],
      })
    ).text();
    process.send({ url: service.url, path: `/api/v1/decision-tables/${id}/evaluate`, bodies, sample });
  } else {
    const fastify = require('fastify')({ logger: false });
    // same JSON in (parsed) and out (a constant as large as the service's answer)
    const constant = JSON.parse(process.argv[4]);
    fastify.post('/evaluate', async () => constant);
    await fastify.listen({ port: 0, host: '127.0.0.1' });
    process.send({ url: `http://127.0.0.1:${fastify.server.address().port}`, path: '/evaluate', bodies });
  }
}

// ------------------------------------------------------------------ parent: autocannon
function start(kind, extra = []) {
  const child = fork(__filename, ['serve', kind, ...extra], {
    execArgv: process.env.SERVER_NODE_OPTIONS ? process.env.SERVER_NODE_OPTIONS.split(' ') : [],
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  return new Promise((resolve, reject) => {
    child.once('message', (m) => resolve({ child, ...m }));
    child.once('exit', (code) => reject(new Error(`${kind} server exited (${code})`)));
  });
}

async function load(target, duration) {
  const autocannon = require('autocannon');
  const result = await autocannon({
    url: target.url,
    connections: CONNECTIONS,
    duration,
    requests: target.bodies.map((body) => ({
      method: 'POST',
      path: target.path,
      headers: { 'content-type': 'application/json', 'x-tenant-id': 'bench' },
      body,
    })),
  });
  const bad = result.non2xx + result.errors + result.timeouts;
  if (bad) throw new Error(`${target.url}${target.path}: ${bad} failed requests`);
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    bytes: result.throughput.average,
  };
}

async function main() {
  console.log(
    `node ${process.version}, ${CONNECTIONS} connections, ${ROUNDS} round(s) of ${DURATION} s per server after ${WARMUP} s warm-up,` +
      ` alternating; each server in its own child process; best round shown (shared machine)\n`,
  );
  const ours = await start('decisions');
  const bare = await start('fastify', [JSON.stringify(JSON.parse(ours.sample))]);
  try {
    if (WARMUP) for (const target of [ours, bare]) await load(target, WARMUP);
    const runs = { ours: [], bare: [] };
    for (let round = 0; round < ROUNDS; round++) {
      runs.ours.push(await load(ours, DURATION));
      runs.bare.push(await load(bare, DURATION));
    }
    const best = (list) => list.reduce((a, b) => (b.rps > a.rps ? b : a));
    const o = best(runs.ours);
    const b = best(runs.bare);
    const row = (label, r, all) =>
      `${label.padEnd(34)} ${Math.round(r.rps).toLocaleString('en-US').padStart(8)} req/s   p50 ${String(r.p50).padStart(3)} ms   p99 ${String(r.p99).padStart(3)} ms` +
      (all.length > 1 ? `   (rounds: ${all.map((x) => Math.round(x.rps)).join(', ')})` : '');
    console.log(row('decisions POST /{id}/evaluate', o, runs.ours));
    console.log(row('bare Fastify (constant answer)', b, runs.bare));
    const ratios = runs.ours.map((x, k) => x.rps / runs.bare[k].rps);
    console.log(
      `\nratio ${(100 * (o.rps / b.rps)).toFixed(0)}% of bare Fastify (best vs best; per round ${ratios.map((r) => `${(100 * r).toFixed(0)}%`).join(', ')}; goal ≥ 60%), p99 ${o.p99} ms (goal < 10 ms)`,
    );
  } finally {
    for (const target of [ours, bare]) {
      target.child.removeAllListeners('exit');
      target.child.kill();
    }
  }
}

if (process.argv[2] === 'serve')
  serve(process.argv[3]).catch((e) => {
    console.error(e);
    process.exit(1);
  });
else
  main().catch((e) => {
    console.error(e);
    process.exit(1);
  });
