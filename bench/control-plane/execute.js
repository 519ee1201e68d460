#!/usr/bin/env node
/**
 * HTTP benchmark of rule execution: `POST /api/v1/rule-engine/execute/{workflowName}` running the
 * 10-node flow of flow-10.js on the real control plane (Testing environment, logs silent), with the
 * execution audit on (every execution recorded) and canary routing on (a rollout of version 2 to 10 %
 * of the bucket keys), side by side with a bare Fastify route answering a constant of the same size.
 * Each server runs in its own child process (one core), autocannon in this one; alternating rounds,
 * best round of each printed (the machine is shared). After the run the audit rows are counted and
 * compared with the 200 answers: none may be lost.
 *
 *   npm run bench:execute                       (embedded PGlite)
 *   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npm run bench:execute
 *        (a fresh database `arbiter_bench_<pid>` on that server; in the middle of the first measured
 *         round the database refuses connections for OUTAGE_SECONDS (default 3) and every session is
 *         terminated — an outage of the database as the service sees it — then comes back)
 *   DURATION=10 CONNECTIONS=100 WARMUP=3 ROUNDS=3 override
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
const { flow10, applicants } = require('./flow-10');

const OUTAGE_SECONDS = Number(process.env.OUTAGE_SECONDS ?? 3);
const SERVER = process.env.BENCH_DATABASE_URL?.trim();
const WORKFLOW = 'loan-offer';

// ------------------------------------------------------------------ child: one server
async function serve(kind, database) {
  process.on('SIGTERM', () => process.exit(0));
  const bodies = applicants(64).map((facts, i) => JSON.stringify({ facts, bucketKey: `customer-${i}` }));
  if (kind === 'control-plane') {
    const { startControlPlane } = require('../../apps/control-plane/dist');
    const { UnitOfWork } = require('../../libs/platform/dist');
    const service = await startControlPlane({
      environment: 'Testing',
      env: {},
      port: 0,
      host: '127.0.0.1',
      overrides: {
        'ConnectionStrings:RuleControlPlaneDb': database,
        'RuleControlPlane:RequireApproval': false,
        'RuleControlPlane:EnableCanary': true,
        'Logging:Level': 'silent',
      },
    });
    const headers = { 'content-type': 'application/json', 'x-tenant-id': 'bench', 'x-actor': 'bench' };
    const call = async (method, path, body) => {
      const res = await fetch(service.url + path, { method, headers, body: body && JSON.stringify(body) });
      const text = await res.text();
      if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
      return JSON.parse(text);
    };
    const base = `/api/v1/rule-engine/rulesets/${WORKFLOW}`;
    await call('POST', base, { ruleSet: flow10('limit'), activateAfterSave: true, detail: 'v1' });
    await call('POST', base, { ruleSet: flow10('credit line'), activateAfterSave: false, detail: 'v2' });
    await call('PUT', `/api/v1/tenants/bench/quotas/limits`, {
      maxConcurrentExecutions: null,
      maxEvaluationsPerMinute: null,
      maxEvaluationsPerDay: null,
    }).catch(() => call('POST', `/api/v1/tenants/bench/quotas/upgrade`, { tier: 'Enterprise' }));
    await call('POST', '/api/v1/canary', { workflowName: WORKFLOW, version: 2, targetPercentage: 10 });
    const sample = await (
      await fetch(`${service.url}/api/v1/rule-engine/execute/${WORKFLOW}`, {
        method: 'POST',
        headers,
        body: bodies[0],
      })
    ).text();
    process.on('message', async (m) => {
      if (m !== 'count') return;
      // executions the service itself answered (autocannon does not count replies in flight at a round's end)
      const metrics = await call('GET', '/api/v1/control-plane/execution/metrics');
      await service.close();
      // a fresh instance on the same database replays whatever was spilled, then we count
      const again = await startControlPlane({
        environment: 'Testing',
        env: {},
        port: 0,
        host: '127.0.0.1',
        overrides: { 'ConnectionStrings:RuleControlPlaneDb': database, 'Logging:Level': 'silent' },
      });
      const rows = await again.app
        .get(UnitOfWork)
        .run((mgr) => mgr.query(`SELECT arm, count(*)::int AS n FROM execution_audit GROUP BY arm`), {
          acrossTenants: true,
        });
      await again.close();
      process.send({
        counted: Object.fromEntries(rows.map((r) => [r.arm, r.n])),
        executed: metrics.executions,
      });
    });
    process.send({ url: service.url, path: `/api/v1/rule-engine/execute/${WORKFLOW}`, bodies, sample });
  } else {
    await serveBareFastify('/execute', JSON.parse(process.argv[4]), bodies);
  }
}

// ------------------------------------------------------------------ parent
async function adminQuery(sql) {
  const { Client } = require('pg');
  const client = new Client({ connectionString: SERVER });
  await client.connect();
  try {
    return await client.query(sql);
  } finally {
    await client.end();
  }
}

async function main() {
  // A directory, not pglite://memory: the count after the run opens the same database in a new instance.
  const dataDir = require('node:fs').mkdtempSync(
    require('node:path').join(require('node:os').tmpdir(), 'arbiter-bench-'),
  );
  let database = `pglite://${dataDir}`;
  let dbName;
  if (SERVER) {
    dbName = `arbiter_bench_${process.pid}`;
    await adminQuery(`CREATE DATABASE ${dbName}`);
    const url = new URL(SERVER);
    url.pathname = `/${dbName}`;
    database = url.toString();
  }
  header(SERVER ? 'PostgreSQL' : 'PGlite (embedded)');
  const ours = await startServer(__filename, 'control-plane', [database]);
  const bare = await startServer(__filename, 'fastify', [JSON.stringify(JSON.parse(ours.sample))]);
  let answered = 0;
  let failed = 0;
  try {
    if (settings.warmup) {
      const w = await load(ours, settings.warmup, { failOnErrors: false });
      answered += w.ok;
      failed += w.bad;
      await load(bare, settings.warmup);
    }
    const runs = { ours: [], bare: [] };
    for (let round = 0; round < settings.rounds; round++) {
      const outage =
        SERVER && round === 0 && OUTAGE_SECONDS > 0
          ? async () => {
              await new Promise((r) => setTimeout(r, (settings.duration * 1000) / 3));
              await adminQuery(`ALTER DATABASE ${dbName} ALLOW_CONNECTIONS false`);
              await adminQuery(
                `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '${dbName}' AND pid <> pg_backend_pid()`,
              );
              console.log(
                `  (database ${dbName} refusing connections for ${OUTAGE_SECONDS} s, sessions terminated)`,
              );
              await new Promise((r) => setTimeout(r, OUTAGE_SECONDS * 1000));
              await adminQuery(`ALTER DATABASE ${dbName} ALLOW_CONNECTIONS true`);
            }
          : undefined;
      const r = await load(ours, settings.duration, { failOnErrors: false, during: outage });
      answered += r.ok;
      failed += r.bad;
      runs.ours.push(r);
      runs.bare.push(await load(bare, settings.duration));
    }
    report('control-plane POST /rule-engine/execute/{wf}', runs, { ratioPercent: 50, p99Ms: 15 });
    ours.child.send('count');
    const { counted, executed } = await new Promise((resolve) =>
      ours.child.on('message', (m) => m.counted && resolve(m)),
    );
    const total = Object.values(counted).reduce((a, n) => a + n, 0);
    console.log(
      `\naudit: ${executed.toLocaleString('en-US')} executions run by the service ` +
        `(${answered.toLocaleString('en-US')} answers counted by autocannon, which drops replies in flight when a round ends), ` +
        `${total.toLocaleString('en-US')} audit rows (${Object.entries(counted)
          .map(([arm, n]) => `${arm} ${n.toLocaleString('en-US')}`)
          .join(
            ', ',
          )}); ${failed} failed requests; ${total === executed ? 'none lost' : `MISMATCH: ${executed - total}`}`,
    );
    if (total !== executed) process.exitCode = 1;
  } finally {
    stopServers(ours, bare);
    if (dbName) await adminQuery(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`).catch(() => undefined);
    require('node:fs').rmSync(dataDir, { recursive: true, force: true });
  }
}

if (process.argv[2] === 'serve')
  serve(process.argv[3], process.argv[4]).catch((e) => {
    console.error(e);
    process.exit(1);
  });
else
  main().catch((e) => {
    console.error(e);
    process.exit(1);
  });
