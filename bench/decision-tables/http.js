#!/usr/bin/env node
/**
 * HTTP benchmark of `POST /api/v1/decision-tables/{id}/evaluate` (the 20-row × 5-input `First` table of
 * run.js) on the real decisions service (Testing environment, embedded PGlite, logs silent), side by side
 * with a bare Fastify route that answers a constant of the same size. Each server runs in its own child
 * process (one core), autocannon in this one (the other core). Prints requests/s and p99 for both.
 *   npm run bench:decision-tables:http      (DURATION=10 CONNECTIONS=100 WARMUP=3 override)
 */
const { fork } = require('node:child_process');
const path = require('node:path');

const DURATION = Number(process.env.DURATION ?? 10);
const WARMUP = Number(process.env.WARMUP ?? 3);
const CONNECTIONS = Number(process.env.CONNECTIONS ?? 100);

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

async function measure(kind, extra) {
  const target = await start(kind, extra);
  try {
    if (WARMUP) await load(target, WARMUP);
    return { target, ...(await load(target, DURATION)) };
  } finally {
    target.child.removeAllListeners('exit');
    target.child.kill();
  }
}

async function main() {
  console.log(
    `node ${process.version}, ${CONNECTIONS} connections, ${DURATION} s each after ${WARMUP} s warm-up; server in a child process\n`,
  );
  const ours = await measure('decisions');
  const bare = await measure('fastify', [JSON.stringify(JSON.parse(ours.target.sample))]);
  const row = (label, r) =>
    `${label.padEnd(34)} ${Math.round(r.rps).toLocaleString('en-US').padStart(8)} req/s   p50 ${String(r.p50).padStart(3)} ms   p99 ${String(r.p99).padStart(3)} ms`;
  console.log(row('decisions POST /{id}/evaluate', ours));
  console.log(row('bare Fastify (constant answer)', bare));
  console.log(
    `\nratio ${(100 * (ours.rps / bare.rps)).toFixed(0)}% of bare Fastify (goal ≥ 60%), p99 ${ours.p99} ms (goal < 10 ms)`,
  );
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
