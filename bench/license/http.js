#!/usr/bin/env node
/**
 * HTTP benchmark of the license server (identity, Testing environment, logs silent):
 * 1. `POST /api/v1/validate` (usage metric on: a row per call, batched) side by side with a bare Fastify
 *    route answering the same JSON, alternating rounds, each server in its own child process; goal ≥ 50 %
 *    of bare Fastify's requests/s and p99 < 10 ms at 100 connections.
 * 2. `POST /api/v1/heartbeat`: CONNECTIONS autocannon connections, each its own activation and nonce chain
 *    (every call spends a nonce and stores the next, and is answered with an Ed25519-signed document);
 *    requests/s (goal ≥ 5,000 on PostgreSQL), ROUNDS rounds after a WARMUP run.
 * ONLY=validate or ONLY=heartbeat runs one part; IDENTITY_DIST=<path of a dist> benches another build.
 * The service runs with its configured pool (`Database:PoolSize`, 10); POOL_SIZE overrides it.
 * Database: BENCH_DATABASE_URL (a postgres:// URL of a server; a fresh database is created) or embedded PGlite;
 * BENCH_NATS_URL: the bus (as deployed; without it the in-process bus, and validate reads are kept 1 s).
 *   npm run build && node bench/license/http.js      (DURATION=10 CONNECTIONS=100 WARMUP=3 ROUNDS=3)
 */
const {
  header,
  load,
  report,
  serveBareFastify,
  settings,
  startServer,
  stopServers,
} = require('../lib/http-bench');

const ADMIN = 'bench-admin-key';

async function connectionString() {
  const url = process.env.BENCH_DATABASE_URL;
  if (!url) return 'pglite://memory';
  const { Client } = require('pg');
  const name = `bench_license_${process.pid}`;
  const client = new Client({ connectionString: url });
  await client.connect();
  await client.query(`CREATE DATABASE ${name}`);
  await client.end();
  const target = new URL(url);
  target.pathname = `/${name}`;
  return target.toString();
}

async function post(url, path, body, headers = {}) {
  const res = await fetch(`${url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  const json = await res.json();
  if (!res.ok) throw new Error(`${path}: ${res.status} ${JSON.stringify(json)}`);
  return json.result;
}

// ------------------------------------------------------------------ child: one server
async function serve(kind) {
  process.on('SIGTERM', () => process.exit(0));
  if (kind === 'fastify') {
    const { bodies, sample } = JSON.parse(process.argv[4]);
    await serveBareFastify('/validate', sample, bodies);
    return;
  }
  // IDENTITY_DIST: another build of identity (an A/B of two builds on the same machine and moment)
  const { startIdentity } = require(process.env.IDENTITY_DIST ?? '../../apps/identity/dist');
  const db = await connectionString();
  const service = await startIdentity({
    environment: 'Testing',
    env: {},
    port: 0,
    host: '127.0.0.1',
    overrides: {
      'ConnectionStrings:LicenseDb': db,
      'LicenseServer:AdminApiKey': ADMIN,
      'Logging:Level': 'silent',
      // as deployed: replicas hear of license changes over NATS (the validate cache then keeps reads 10 s)
      ...(process.env.BENCH_NATS_URL ? { 'ConnectionStrings:Cache': process.env.BENCH_NATS_URL } : {}),
      ...(process.env.POOL_SIZE ? { 'Database:PoolSize': Number(process.env.POOL_SIZE) } : {}),
    },
  });
  const url = service.url;
  const key = await post(
    url,
    '/api/v1/keys/generate',
    {
      organizationId: 'bench',
      organizationName: 'Bench',
      tier: 'Licensed',
      validDays: 30,
      maxActivations: 1000,
    },
    { 'x-admin-api-key': ADMIN },
  );
  const proofs = [];
  const runs = 2 + settings.rounds; // validate's bodies, the heartbeat warm-up, each heartbeat round
  for (let i = 0; i < settings.connections * runs; i++) {
    const activation = await post(url, '/api/v1/activate', {
      licenseKey: key.licenseKey,
      machineFingerprint: `bench-${i}`,
      productVersion: '1.0.0',
      environment: 'Production',
    });
    proofs.push(activation.proof.payload);
  }
  const bodies = proofs.slice(0, 16).map((p) =>
    JSON.stringify({
      licenseKey: key.licenseKey,
      machineFingerprint: p.machineFingerprint,
      actionType: 'api.validate',
    }),
  );
  const sample = await post(url, '/api/v1/validate', JSON.parse(bodies[0]));
  // the parent asks for the server's CPU time (what a heartbeat costs this process, whatever the machine's load)
  process.on('message', (m) => {
    if (m === 'cpu') process.send({ cpu: process.cpuUsage() });
  });
  process.send({
    url,
    path: '/api/v1/validate',
    bodies,
    sample: { isSuccess: true, result: sample, errors: [], timestamp: new Date().toISOString() },
    proofs,
    database: db.replace(/\/\/[^@]*@/, '//'),
  });
}

/**
 * CONNECTIONS chains of heartbeats for `seconds` (autocannon, one chain per connection): each call spends
 * its nonce and the chain continues with the answer's; a chain's nonce carries over to the next run.
 */
async function heartbeats(target, seconds, run) {
  const autocannon = require('autocannon');
  // a fresh set of chains per run: autocannon drops the answers of the calls in flight when a run ends
  const proofs = target.proofs.slice(run * settings.connections, (run + 1) * settings.connections);
  const nonces = proofs.map((p) => p.nonce);
  // autocannon resets a connection's context before each request (one request in the list), so a chain
  // is taken per request from the free ones and given back with its answer: a chain is never in two
  // requests at once (taking them round robin did that whenever answers came back out of order, and the
  // second call of a chain was refused as a spent nonce)
  const free = proofs.map((_, i) => i);
  let failed = 0;
  const chainOf = new Map(proofs.map((p, i) => [p.proofId, i]));
  const result = await autocannon({
    url: target.url,
    connections: proofs.length,
    duration: seconds,
    requests: [
      {
        method: 'POST',
        path: '/api/v1/heartbeat',
        headers: { 'content-type': 'application/json' },
        setupRequest: (req, context) => {
          if (context.chain === undefined) context.chain = free.shift();
          const proof = proofs[context.chain];
          return {
            ...req,
            body: JSON.stringify({
              proofId: proof.proofId,
              licenseId: proof.licenseId,
              machineFingerprint: proof.machineFingerprint,
              nonce: nonces[context.chain],
            }),
          };
        },
        // the answer's proof names the chain: autocannon builds every connection's first request once, on
        // a request object its connections share, so the first requests all carry the last chain's body
        // (one of them wins, the others are refused: `refused` below)
        onResponse: (status, body, context) => {
          if (context.chain !== undefined) free.push(context.chain);
          if (status !== 200) {
            return void failed++;
          }
          const answer = JSON.parse(body).result;
          nonces[chainOf.get(answer.heartbeat.payload.proofId)] = answer.nonce;
        },
      },
    ],
  });
  return {
    rps: result['2xx'] / seconds,
    p50: result.latency.p50,
    p99: result.latency.p99,
    failed: failed + result.errors + result.timeouts,
    detail: `${failed} refused, ${result.errors} errors, ${result.timeouts} timeouts`,
    chains: proofs.length,
  };
}

/** The server's CPU time so far (user + system, µs). */
function serverCpu(target) {
  return new Promise((resolve) => {
    const onMessage = (m) => {
      if (!m || !m.cpu) return;
      target.child.off('message', onMessage);
      resolve(m.cpu.user + m.cpu.system);
    };
    target.child.on('message', onMessage);
    target.child.send('cpu');
  });
}

/**
 * CPU time (µs) of the PostgreSQL backends serving the bench database so far, from /proc (same machine,
 * Linux), by backend: what the database spends per heartbeat, whatever else loads the machine (a backend
 * the pool opened during the run counts from its start). Null when unreadable.
 */
async function databaseCpu(database) {
  if (!process.env.BENCH_DATABASE_URL) return null;
  try {
    const { readFileSync } = require('node:fs');
    const { Client } = require('pg');
    const client = new Client({ connectionString: process.env.BENCH_DATABASE_URL });
    await client.connect();
    const { rows } = await client.query('SELECT pid FROM pg_stat_activity WHERE datname = $1', [
      database.split('/').pop(),
    ]);
    await client.end();
    const tick = 1e6 / 100; // USER_HZ
    const byPid = new Map();
    for (const { pid } of rows) {
      const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
      byPid.set(pid, (Number(fields[11]) + Number(fields[12])) * tick); // utime, stime
    }
    return byPid;
  } catch {
    return null;
  }
}

// ------------------------------------------------------------------ parent
/** ONLY=validate or ONLY=heartbeat runs one part. */
const only = process.env.ONLY;

async function main() {
  const ours = await startServer(__filename, 'identity');
  header(ours.database);
  const bare = await startServer(__filename, 'fastify', [
    JSON.stringify({ bodies: ours.bodies, sample: ours.sample }),
  ]);
  try {
    if (only !== 'heartbeat') {
      if (settings.warmup) for (const target of [ours, bare]) await load(target, settings.warmup);
      const runs = { ours: [], bare: [] };
      for (let round = 0; round < settings.rounds; round++) {
        runs.ours.push(await load(ours, settings.duration));
        runs.bare.push(await load(bare, settings.duration));
      }
      report('identity POST /api/v1/validate', runs, { ratioPercent: 50, p99Ms: 10 });
    }
    if (only === 'validate') return;
    if (settings.warmup) await heartbeats(ours, settings.warmup, 1);
    const hbRuns = [];
    for (let round = 0; round < settings.rounds; round++) {
      const cpu0 = await serverCpu(ours);
      const db0 = await databaseCpu(ours.database);
      const run = await heartbeats(ours, settings.duration, 2 + round);
      const calls = Math.max(1, run.rps * settings.duration + run.failed);
      run.cpuPerCall = ((await serverCpu(ours)) - cpu0) / calls;
      const db1 = await databaseCpu(ours.database);
      run.dbCpuPerCall =
        db0 && db1 ? [...db1].reduce((sum, [pid, cpu]) => sum + cpu - (db0.get(pid) ?? 0), 0) / calls : null;
      hbRuns.push(run);
    }
    const bareRun = await load(bare, settings.duration);
    const hb = hbRuns.reduce((a, b) => (b.rps > a.rps ? b : a));
    console.log(
      `\nidentity POST /api/v1/heartbeat: ${Math.round(hb.rps).toLocaleString('en-US')} req/s, p50 ${hb.p50} ms, p99 ${hb.p99} ms ` +
        `(rounds: ${hbRuns.map((r) => Math.round(r.rps)).join(', ')}; ${hb.chains} nonce chains, ` +
        `${hbRuns.map((r) => r.detail).join('; ')} (refused: the first requests of the connections, see above), ` +
        `answers counted; goal ≥ 5,000 req/s on PostgreSQL)`,
    );
    const db = hb.dbCpuPerCall;
    console.log(
      `  CPU per heartbeat: service ${hb.cpuPerCall.toFixed(0)} µs` +
        (db !== null
          ? `, PostgreSQL ${db.toFixed(0)} µs (together ${Math.round(2e6 / (hb.cpuPerCall + db)).toLocaleString('en-US')} heartbeats/s on two free cores)`
          : '') +
        `; bare Fastify right after: ${Math.round(bareRun.rps).toLocaleString('en-US')} req/s, ` +
        `heartbeat at ${((100 * hb.rps) / bareRun.rps).toFixed(0)}% of it`,
    );
  } finally {
    stopServers(ours, bare);
    await dropDatabase(ours);
  }
}

/** The bench's own database goes once its server has exited. */
async function dropDatabase(target) {
  if (!process.env.BENCH_DATABASE_URL || !target.database.startsWith('postgres')) return;
  if (target.child.exitCode === null) await new Promise((resolve) => target.child.once('exit', resolve));
  const { Client } = require('pg');
  const client = new Client({ connectionString: process.env.BENCH_DATABASE_URL });
  await client.connect();
  await client.query(`DROP DATABASE IF EXISTS ${target.database.split('/').pop()} WITH (FORCE)`);
  await client.end();
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
