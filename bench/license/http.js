#!/usr/bin/env node
/**
 * HTTP benchmark of the license server (identity, Testing environment, logs silent):
 * 1. `POST /api/v1/validate` (usage metric on: a row per call, batched) side by side with a bare Fastify
 *    route answering the same JSON, alternating rounds, each server in its own child process; goal ≥ 50 %
 *    of bare Fastify's requests/s and p99 < 10 ms at 100 connections.
 * 2. `POST /api/v1/heartbeat`: CONNECTIONS autocannon connections, each its own activation and nonce chain
 *    (every call spends a nonce and stores the next, and is answered with an Ed25519-signed document);
 *    requests/s (goal ≥ 5,000 on PostgreSQL), ROUNDS rounds after a WARMUP run.
 * The service runs with its configured pool (`Database:PoolSize`, 10); POOL_SIZE overrides it.
 * Database: BENCH_DATABASE_URL (a postgres:// URL of a server; a fresh database is created) or embedded PGlite.
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
  const { startIdentity } = require('../../apps/identity/dist');
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
  for (let i = 0; i < settings.connections; i++) {
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
async function heartbeats(target, seconds, nonces) {
  const autocannon = require('autocannon');
  let next = 0;
  let failed = 0;
  const result = await autocannon({
    url: target.url,
    connections: target.proofs.length,
    duration: seconds,
    requests: [
      {
        method: 'POST',
        path: '/api/v1/heartbeat',
        headers: { 'content-type': 'application/json' },
        setupRequest: (req, context) => {
          if (context.chain === undefined) context.chain = next++ % target.proofs.length;
          const proof = target.proofs[context.chain];
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
        onResponse: (status, body, context) => {
          if (status === 200) nonces[context.chain] = JSON.parse(body).result.nonce;
          else failed++;
        },
      },
    ],
  });
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    failed: failed + result.errors + result.timeouts,
    chains: target.proofs.length,
  };
}

// ------------------------------------------------------------------ parent
async function main() {
  const ours = await startServer(__filename, 'identity');
  header(ours.database);
  const bare = await startServer(__filename, 'fastify', [
    JSON.stringify({ bodies: ours.bodies, sample: ours.sample }),
  ]);
  try {
    if (settings.warmup) for (const target of [ours, bare]) await load(target, settings.warmup);
    const runs = { ours: [], bare: [] };
    for (let round = 0; round < settings.rounds; round++) {
      runs.ours.push(await load(ours, settings.duration));
      runs.bare.push(await load(bare, settings.duration));
    }
    report('identity POST /api/v1/validate', runs, { ratioPercent: 50, p99Ms: 10 });
    const nonces = ours.proofs.map((p) => p.nonce);
    if (settings.warmup) await heartbeats(ours, settings.warmup, nonces);
    const hbRuns = [];
    for (let round = 0; round < settings.rounds; round++) hbRuns.push(await heartbeats(ours, settings.duration, nonces));
    const hb = hbRuns.reduce((a, b) => (b.rps > a.rps ? b : a));
    console.log(
      `\nidentity POST /api/v1/heartbeat: ${Math.round(hb.rps).toLocaleString('en-US')} req/s, p50 ${hb.p50} ms, p99 ${hb.p99} ms ` +
        `(rounds: ${hbRuns.map((r) => Math.round(r.rps)).join(', ')}; ${hb.chains} nonce chains, ` +
        `${hbRuns.reduce((n, r) => n + r.failed, 0)} failed; goal ≥ 5,000 req/s on PostgreSQL)`,
    );
  } finally {
    stopServers(ours, bare);
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
