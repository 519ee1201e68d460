#!/usr/bin/env node
/**
 * HTTP benchmark of the experience service (identity, Testing environment, logs silent, local embedder,
 * no model), the server in a child process, once per store size in LESSONS (default `10000,100000`):
 * 1. seeds the lessons (distinct synthetic "Lesson: when … fails with …, run … before …" lines). SEED=bulk
 *    (default, bench-only): the server process reads them with the extraction route's own heuristic reader
 *    (`heuristicLessons`) and writes them with `Knowledge.seed` (the service's embedder and repository,
 *    multi-row inserts, no duplicate/supersede lookups: the corpus is known distinct); SEED=api: through
 *    `POST /api/extract`, 50 a call (about 7 minutes for 10,000 on a loaded machine);
 * 2. `POST /api/intercept` with CLIENTS concurrent clients (default 10) for DURATION seconds (default 10)
 *    after WARMUP seconds: exact p50/p95/p99 of every request (goal p95 < 10 ms at 10k, < 25 ms at 100k),
 *    then a bare Node HTTP server answering a fixed body under the same load (the peer: what this machine
 *    gives an HTTP answer right now), then requests/s at 50 clients;
 * 3. on the first size only: `POST /api/posttool` at 50 clients for DURATION seconds (half of the calls carry
 *    a suggestion text from intercept, so the judge records verdicts): accepted (202) per second, and how
 *    long the judge takes to drain the queue; then a crash: posttool load again, the server killed
 *    (SIGKILL) in the middle of it, a new server on the same database, and every job answered 202 counted
 *    as judged (`no job lost`).
 * Every figure line ends with the machine's load average (`uptime`'s 1-minute figure) when it was taken.
 * Database: a fresh database per size (dropped afterwards) on BENCH_DATABASE_URL (a postgres:// server URL;
 * default: this machine's postgres://postgres@127.0.0.1:5432/postgres when it answers), else a PGlite folder
 * (BENCH_DATABASE_URL=pglite forces it). Either way the hot path searches the in-memory index; on PGlite the
 * entries also fill pgvector's HNSW index, which makes seeding 100,000 lessons take many minutes in WASM.
 *   npm run bench:experience     (LESSONS=10000,100000 CLIENTS=10 DURATION=10 WARMUP=3 SEED=bulk; POSTTOOL=0 skips 3)
 */
const { fork } = require('node:child_process');
const { mkdtempSync, rmSync } = require('node:fs');
const { tmpdir, loadavg } = require('node:os');
const { join } = require('node:path');

const SIZES = String(process.env.LESSONS ?? '10000,100000')
  .split(',')
  .map(Number)
  .filter((n) => n > 0);
const CLIENTS = Number(process.env.CLIENTS ?? 10);
const DURATION = Number(process.env.DURATION ?? 10);
const WARMUP = Number(process.env.WARMUP ?? 3);
const SEED = process.env.SEED ?? 'bulk';
const load = () => `(load ${loadavg()[0].toFixed(2)})`;

// a vocabulary of pseudo-words: synthetic lessons that are not near-duplicates of each other
function rng(seed) {
  let s = seed >>> 0;
  return () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32;
}
const random = rng(42);
const syllables = [
  'ka',
  'lo',
  'mi',
  'ru',
  'te',
  'vo',
  'zan',
  'pel',
  'dor',
  'qui',
  'sha',
  'bri',
  'nex',
  'tor',
  'gal',
  'fen',
];
const word = () =>
  Array.from(
    { length: 2 + Math.floor(random() * 2) },
    () => syllables[Math.floor(random() * syllables.length)],
  ).join('');
const VOCAB = Array.from({ length: 4000 }, word);
const pick = () => VOCAB[Math.floor(random() * VOCAB.length)];
const lesson = () =>
  `Lesson: when ${pick()} ${pick()} fails with ${pick()} ${pick()}, run ${pick()} ${pick()} before ${pick()}`;

// ---------------------------------------------------------------- the server (child process)

async function serve() {
  process.on('SIGTERM', () => void service?.close().finally(() => process.exit(0)));
  const { startIdentity } = require('../../apps/identity/dist');
  const { RequestContext } = require('@arbiter/platform');
  const { Knowledge, Collections, heuristicLessons } = require('../../apps/identity/dist/experience');
  const { UnitOfWork } = require('@arbiter/platform');
  let service = null;
  service = await startIdentity({
    environment: 'Testing',
    env: {},
    port: 0,
    host: '127.0.0.1',
    overrides: {
      'ConnectionStrings:LicenseDb': process.env.BENCH_DB,
      'Logging:Level': 'silent',
      'Database:PoolSize': 20,
      'Experience:RateLimitPerMinute': 100_000_000,
      'Experience:JudgeIntervalMs': 50,
      'Experience:JudgeBatchSize': 500,
      'Experience:FileStoreDir': join(tmpdir(), `arbiter-bench-experience-${process.pid}`),
      ...(process.env.VECTOR_STORE ? { 'Experience:VectorStore': process.env.VECTOR_STORE } : {}),
    },
  });
  const knowledge = service.app.get(Knowledge);
  const uow = service.app.get(UnitOfWork);
  process.on('message', async (message) => {
    try {
      if (message.type === 'seed') {
        // what POST /api/extract stores for these lines, without its per-lesson neighbour lookups
        const inputs = heuristicLessons(message.lines.join('\n')).map((d, i) => ({
          kind: 'lesson',
          collection: Collections.lessons,
          pattern: d.pattern,
          text: d.text,
          confidence: d.confidence,
          workspace: `ws-${Math.floor((message.offset + i) / 50) % 7}`,
          toolName: d.toolName,
          agent: 'bench',
          sessionId: `seed-${message.offset + i}`,
          sourceExamples: [`seed-${message.offset + i}: ${d.pattern}`.slice(0, 300)],
          source: 'extracted',
        }));
        const count = await RequestContext.run({ tenantId: 'default' }, () => knowledge.seed(inputs));
        process.send({ type: 'seeded', count });
      } else if (message.type === 'jobs') {
        const rows = await uow.run(
          (m) => m.query(`SELECT status, count(*)::int AS n FROM experience_judge_jobs GROUP BY status`),
          { acrossTenants: true },
        );
        process.send({ type: 'jobs', jobs: Object.fromEntries(rows.map((r) => [r.status, r.n])) });
      }
    } catch (error) {
      process.send({ type: 'error', message: error.stack ?? String(error) });
    }
  });
  process.send({ type: 'ready', url: service.url });
}

function startServer(db) {
  const child = fork(__filename, ['serve'], {
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    env: { ...process.env, BENCH_DB: db },
    execArgv: process.env.SERVER_NODE_OPTIONS ? process.env.SERVER_NODE_OPTIONS.split(' ') : [],
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const ask = (message, answer) =>
    new Promise((resolve, reject) => {
      const on = (m) => {
        if (m.type === 'error') reject(new Error(m.message));
        else if (m.type === answer) resolve(m);
        else return;
        child.off('message', on);
      };
      child.on('message', on);
      if (message) child.send(message);
    });
  return ask(null, 'ready').then(({ url }) => ({
    url,
    ask,
    exited,
    stop: async (signal = 'SIGTERM') => {
      child.kill(signal);
      await exited;
      rmSync(join(tmpdir(), `arbiter-bench-experience-${child.pid}`), { recursive: true, force: true });
    },
  }));
}

const LOCAL_SERVER = 'postgres://postgres@127.0.0.1:5432/postgres';

/** BENCH_DATABASE_URL, or the local server when it answers, or null (PGlite). */
async function serverUrl() {
  const configured = process.env.BENCH_DATABASE_URL;
  if (configured) return configured.startsWith('postgres') ? configured : null;
  const { Client } = require('pg');
  const client = new Client({ connectionString: LOCAL_SERVER, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    return LOCAL_SERVER;
  } catch {
    return null;
  } finally {
    await client.end().catch(() => undefined);
  }
}

async function freshDatabase(size, server) {
  if (!server) {
    const dir = mkdtempSync(join(tmpdir(), `arbiter-bench-experience-${size}-`));
    return { url: `pglite://${dir}`, drop: async () => rmSync(dir, { recursive: true, force: true }) };
  }
  const { Client } = require('pg');
  const name = `bench_experience_${process.pid}_${size}`;
  const admin = async (sql) => {
    const client = new Client({ connectionString: server });
    await client.connect();
    await client.query(sql).finally(() => client.end());
  };
  await admin(`CREATE DATABASE ${name}`);
  const target = new URL(server);
  target.pathname = `/${name}`;
  return { url: target.toString(), drop: () => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}

// ---------------------------------------------------------------- the load

async function post(url, path, body) {
  const res = await fetch(`${url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

const gates = async (url) => (await fetch(`${url}/api/gates`)).json();

/** autocannon load (CLIENTS connections, bodies in turn); every response time kept for exact percentiles. */
async function run(url, clients, seconds, makeBody, path, okStatus, onStart) {
  const autocannon = require('autocannon');
  const bodies = Array.from({ length: 500 }, () => JSON.stringify(makeBody()));
  const latencies = [];
  let ok = 0;
  let bad = 0;
  const instance = autocannon({
    url,
    connections: clients,
    duration: seconds,
    requests: bodies.map((body) => ({
      method: 'POST',
      path,
      headers: { 'content-type': 'application/json' },
      body,
    })),
  });
  instance.on('response', (_client, status, _bytes, ms) => {
    latencies.push(ms);
    if (status === okStatus) ok++;
    else bad++;
  });
  onStart?.(instance);
  const result = await instance;
  latencies.sort((a, b) => a - b);
  const q = (p) => latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))]?.toFixed(2);
  return {
    ok,
    rps: Math.round(ok / seconds),
    p50: q(0.5),
    p95: q(0.95),
    p99: q(0.99),
    bad: bad + result.errors + result.timeouts,
  };
}

async function seed(server, size) {
  const lines = Array.from({ length: size }, lesson);
  const started = Date.now();
  if (SEED === 'api') {
    for (let i = 0; i < size; i += 50) {
      const r = await post(server.url, '/api/extract', {
        transcript: lines.slice(i, i + 50).join('\n'),
        sessionId: `seed-${i}`,
        agent: 'bench',
        workspace: `ws-${(i / 50) % 7}`,
      });
      if (r.status !== 200) throw new Error(`seed: ${r.status} ${JSON.stringify(r.body)}`);
    }
  } else {
    for (let i = 0; i < size; i += 10_000) {
      await server.ask({ type: 'seed', lines: lines.slice(i, i + 10_000), offset: i }, 'seeded');
    }
  }
  // the in-memory index (loaded at startup) learnt each batch after its commit
  const vectordb = (await gates(server.url)).vectordb;
  console.log(
    `seeded ${size} lessons (${SEED}) in ${((Date.now() - started) / 1000).toFixed(1)} s; engine ${vectordb.engine}, ` +
      `${vectordb.vectorsIndexed} vectors indexed ${load()}`,
  );
  return lines;
}

/** The peer: a bare Node HTTP server answering a fixed intercept body, in a child process like the service. */
function peer() {
  const answer = JSON.stringify({ suggestions: null, hasSuggestions: false });
  const server = require('node:http').createServer((req, res) => {
    req.resume();
    req.on('end', () =>
      res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' }).end(answer),
    );
  });
  server.listen(0, '127.0.0.1', () =>
    process.send({ type: 'ready', url: `http://127.0.0.1:${server.address().port}` }),
  );
  process.on('SIGTERM', () => process.exit(0));
}

async function peerLoad() {
  const child = fork(__filename, ['peer'], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  const { url } = await new Promise((resolve) => child.once('message', resolve));
  try {
    const body = () => ({ toolName: 'Bash', toolInput: { command: 'npm test' } });
    await run(url, CLIENTS, WARMUP, body, '/api/intercept', 200);
    return await run(url, CLIENTS, DURATION, body, '/api/intercept', 200);
  } finally {
    child.kill('SIGTERM');
  }
}

async function interceptLoad(server, lines) {
  const interceptBody = () => {
    const words = lines[Math.floor(Math.random() * lines.length)].split(' ');
    return {
      toolName: 'Bash',
      toolInput: { command: `${words[2]} ${words[3]} ${words[6]}` },
      context: { workspace: 'ws-1', sessionId: 'bench' },
    };
  };
  await run(server.url, CLIENTS, WARMUP, interceptBody, '/api/intercept', 200);
  const i10 = await run(server.url, CLIENTS, DURATION, interceptBody, '/api/intercept', 200);
  console.log(
    `intercept, ${CLIENTS} clients: ${i10.rps} req/s, p50 ${i10.p50} ms, p95 ${i10.p95} ms, p99 ${i10.p99} ms ` +
      `(${i10.ok} answered, ${i10.bad} failed) ${load()}`,
  );
  const bare = await peerLoad();
  console.log(
    `peer (bare Node HTTP, fixed answer), ${CLIENTS} clients: ${bare.rps} req/s, p50 ${bare.p50} ms, p95 ${bare.p95} ms: ` +
      `intercept does ${((100 * i10.rps) / Math.max(1, bare.rps)).toFixed(1)} % of it ${load()}`,
  );
  const i50 = await run(server.url, 50, DURATION, interceptBody, '/api/intercept', 200);
  console.log(
    `intercept, 50 clients: ${i50.rps} req/s, p50 ${i50.p50} ms, p95 ${i50.p95} ms, p99 ${i50.p99} ms ` +
      `(${i50.ok} answered, ${i50.bad} failed) ${load()}`,
  );
  // suggestion texts for posttool (what a hook sends back after the tool call)
  const suggestions = [];
  for (let i = 0; i < 50 && suggestions.length < 20; i++) {
    const r = await post(server.url, '/api/intercept', interceptBody());
    if (r.body.suggestions) suggestions.push(r.body.suggestions);
  }
  return suggestions;
}

async function posttoolLoad(db, server, suggestions) {
  let n = 0;
  const body = () => ({
    toolName: 'Bash',
    toolInput: { command: `make step-${n}` },
    outcome:
      n % 3
        ? { success: true, error: null, duration_ms: 3 }
        : { success: false, error: 'exit 2', duration_ms: 9 },
    suggestions: n++ % 2 && suggestions.length ? suggestions[n % suggestions.length] : null,
    context: { sessionId: `bench-${n % 20}` },
  });
  const p = await run(server.url, 50, DURATION, body, '/api/posttool', 202);
  console.log(
    `posttool, 50 clients: ${p.rps} accepted (202)/s, p50 ${p.p50} ms, p95 ${p.p95} ms ` +
      `(${p.ok} accepted, ${p.bad} failed) ${load()}`,
  );
  const drainStart = Date.now();
  let judge = (await gates(server.url)).judge;
  const queuedAtEnd = judge.queueLength;
  while (judge.queueLength > 0 && Date.now() - drainStart < 300_000) {
    await new Promise((r) => setTimeout(r, 100));
    judge = (await gates(server.url)).judge;
  }
  console.log(
    `judge: ${queuedAtEnd} queued when the load ended, drained ${((Date.now() - drainStart) / 1000).toFixed(1)} s later; ` +
      `judged in the last minute ${judge.processingRate} ${load()}`,
  );

  // a crash under load: SIGKILL in the middle, a new server on the same database, every 202 judged
  let accepted = p.ok;
  const crash = await run(server.url, 50, 4, body, '/api/posttool', 202, () =>
    setTimeout(() => server.stop('SIGKILL'), 2000),
  );
  accepted += crash.ok;
  await server.exited;
  const restarted = await startServer(db.url);
  const restartStart = Date.now();
  let jobs = (await restarted.ask({ type: 'jobs' }, 'jobs')).jobs;
  while ((jobs.queued ?? 0) > 0 && Date.now() - restartStart < 300_000) {
    await new Promise((r) => setTimeout(r, 200));
    jobs = (await restarted.ask({ type: 'jobs' }, 'jobs')).jobs;
  }
  const judged = jobs.done ?? 0;
  console.log(
    `crash: ${crash.ok} accepted in the 2 s before the SIGKILL (${crash.bad} refused or cut off); after the restart ` +
      `${judged} jobs judged of ${accepted} accepted (the 202s of the run, one extra per call committed but cut off ` +
      `before its answer), ${jobs.queued ?? 0} queued, ${jobs.failed ?? 0} failed: ` +
      `${judged >= accepted ? 'no job lost' : `${accepted - judged} LOST`} ${load()}`,
  );
  return restarted;
}

async function main() {
  const server = await serverUrl();
  console.log(
    `experience benchmark: sizes ${SIZES.join(', ')}, database ${server ? `PostgreSQL (${new URL(server).host})` : 'PGlite'} ${load()}`,
  );
  for (const [index, size] of SIZES.entries()) {
    const db = await freshDatabase(size, server);
    let service = await startServer(db.url);
    try {
      const lines = await seed(service, size);
      const suggestions = await interceptLoad(service, lines);
      if (index === 0 && process.env.POSTTOOL !== '0') service = await posttoolLoad(db, service, suggestions);
    } finally {
      await service.stop().catch(() => undefined);
      await db.drop().catch(() => undefined);
    }
  }
}

if (process.argv[2] === 'serve') serve();
else if (process.argv[2] === 'peer') peer();
else
  main().catch((error) => {
    console.error(error);
    process.exit(1);
  });
