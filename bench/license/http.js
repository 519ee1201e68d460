#!/usr/bin/env node
/**
 * HTTP benchmark of the license server (identity, Testing environment, logs silent):
 * 1. `POST /api/v1/validate` (usage metric on: a row per call, batched) side by side with a bare Fastify
 *    route answering the same JSON, alternating rounds, each server in its own child process; goal ≥ 50 %
 *    of bare Fastify's requests/s and p99 < 10 ms at 100 connections.
 * 2. `POST /api/v1/heartbeat`: CONNECTIONS clients, each its own activation and nonce chain (every call
 *    spends a nonce and stores the next); requests/s (goal ≥ 5,000 on PostgreSQL).
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
      'Database:PoolSize': 20,
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

/** CONNECTIONS chains of heartbeats for `seconds`: each spends its nonce and continues with the answer's. */
async function heartbeats(target, seconds) {
  let done = 0;
  let failed = 0;
  const latencies = [];
  const end = Date.now() + seconds * 1000;
  await Promise.all(
    target.proofs.map(async (proof) => {
      let nonce = proof.nonce;
      while (Date.now() < end) {
        const t0 = performance.now();
        const res = await fetch(`${target.url}/api/v1/heartbeat`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            proofId: proof.proofId,
            licenseId: proof.licenseId,
            machineFingerprint: proof.machineFingerprint,
            nonce,
          }),
        });
        const json = await res.json();
        latencies.push(performance.now() - t0);
        if (res.status !== 200) {
          failed++;
          break;
        }
        nonce = json.result.nonce;
        done++;
      }
    }),
  );
  latencies.sort((a, b) => a - b);
  return {
    rps: done / seconds,
    p99: latencies[Math.floor(latencies.length * 0.99)] ?? 0,
    failed,
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
    const hb = await heartbeats(ours, settings.duration);
    console.log(
      `\nidentity POST /api/v1/heartbeat: ${Math.round(hb.rps).toLocaleString('en-US')} req/s, p99 ${hb.p99.toFixed(1)} ms ` +
        `(${hb.chains} nonce chains, ${hb.failed} failed; goal ≥ 5,000 req/s on PostgreSQL)`,
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
