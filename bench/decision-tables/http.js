#!/usr/bin/env node
/**
 * HTTP benchmark of `POST /api/v1/decision-tables/{id}/evaluate` (the 20-row × 5-input `First` table of
 * run.js) on the real decisions service (Testing environment, embedded PGlite, logs silent), side by side
 * with a bare Fastify route that answers a constant of the same size. Each server runs in its own child
 * process (one core), autocannon in this one (the other core); the two are measured in alternating rounds
 * and the best round of each is printed (the machine is shared). Prints requests/s and p99 for both.
 *   npm run bench:decision-tables:http      (DURATION=10 CONNECTIONS=100 WARMUP=3 ROUNDS=3 override)
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
    await serveBareFastify('/evaluate', JSON.parse(process.argv[4]), bodies);
  }
}

// ------------------------------------------------------------------ parent: autocannon
async function main() {
  header();
  const ours = await startServer(__filename, 'decisions');
  const bare = await startServer(__filename, 'fastify', [JSON.stringify(JSON.parse(ours.sample))]);
  try {
    if (settings.warmup) for (const target of [ours, bare]) await load(target, settings.warmup);
    const runs = { ours: [], bare: [] };
    for (let round = 0; round < settings.rounds; round++) {
      runs.ours.push(await load(ours, settings.duration));
      runs.bare.push(await load(bare, settings.duration));
    }
    report('decisions POST /{id}/evaluate', runs, { ratioPercent: 60, p99Ms: 10 });
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
