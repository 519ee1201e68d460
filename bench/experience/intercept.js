#!/usr/bin/env node
/**
 * HTTP benchmark of the experience service (identity, Testing environment, logs silent, local embedder,
 * no model), the server in a child process:
 * 1. seeds LESSONS lessons (default 10,000; distinct synthetic lessons, 50 per `POST /api/extract`);
 * 2. `POST /api/intercept` with CLIENTS concurrent clients (default 10) for DURATION seconds (default 10)
 *    after WARMUP seconds: exact p50/p95/p99 of every request (goal p95 < 10 ms at 10k, < 25 ms at 100k),
 *    then requests/s at 50 clients;
 * 3. `POST /api/posttool` at 50 clients for DURATION seconds: accepted (202) per second, then how long the
 *    judge takes to drain the queue and how many jobs it judged (every accepted job must be judged).
 * Database: BENCH_DATABASE_URL (a postgres:// server URL; a fresh database is created; the vector search is
 * then the exact in-process one) or embedded PGlite (pgvector HNSW).
 *   npm run build && node bench/experience/intercept.js     (LESSONS=10000 CLIENTS=10 DURATION=10 WARMUP=3)
 */
const { fork } = require('node:child_process');

const LESSONS = Number(process.env.LESSONS ?? 10_000);
const CLIENTS = Number(process.env.CLIENTS ?? 10);
const DURATION = Number(process.env.DURATION ?? 10);
const WARMUP = Number(process.env.WARMUP ?? 3);

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
const lesson = () => ({
  command: `${pick()} ${pick()} --${pick()}`,
  text: `Lesson: when ${pick()} ${pick()} fails with ${pick()} ${pick()}, run ${pick()} ${pick()} before ${pick()}`,
});

async function serve() {
  process.on('SIGTERM', () => process.exit(0));
  const { startIdentity } = require('../../apps/identity/dist');
  let db = 'pglite://memory';
  if (process.env.BENCH_DATABASE_URL) {
    const { Client } = require('pg');
    const name = `bench_experience_${process.pid}`;
    const client = new Client({ connectionString: process.env.BENCH_DATABASE_URL });
    await client.connect();
    await client.query(`CREATE DATABASE ${name}`);
    await client.end();
    const target = new URL(process.env.BENCH_DATABASE_URL);
    target.pathname = `/${name}`;
    db = target.toString();
  }
  const service = await startIdentity({
    environment: 'Testing',
    env: {},
    port: 0,
    host: '127.0.0.1',
    overrides: {
      'ConnectionStrings:LicenseDb': db,
      'Logging:Level': 'silent',
      'Database:PoolSize': 20,
      'Experience:RateLimitPerMinute': 100_000_000,
      'Experience:JudgeIntervalMs': 50,
      'Experience:JudgeBatchSize': 500,
      ...(process.env.VECTOR_STORE ? { 'Experience:VectorStore': process.env.VECTOR_STORE } : {}),
    },
  });
  process.send({ url: service.url });
}

async function post(url, path, body) {
  const res = await fetch(`${url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const json = await res.json();
  return { status: res.status, body: json };
}

/** autocannon load (CLIENTS connections, bodies in turn); every response time kept for exact percentiles. */
async function run(url, clients, seconds, makeBody, path, okStatus) {
  const autocannon = require('autocannon');
  const bodies = Array.from({ length: 500 }, () => JSON.stringify(makeBody()));
  const latencies = [];
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
    if (status !== okStatus) bad++;
  });
  const result = await instance;
  latencies.sort((a, b) => a - b);
  const q = (p) => latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))]?.toFixed(2);
  return {
    requests: latencies.length,
    rps: Math.round(result.requests.average),
    p50: q(0.5),
    p95: q(0.95),
    p99: q(0.99),
    bad: bad + result.errors + result.timeouts,
  };
}

async function main() {
  const child = fork(__filename, ['serve'], {
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    execArgv: process.env.SERVER_NODE_OPTIONS ? process.env.SERVER_NODE_OPTIONS.split(' ') : [],
  });
  const { url } = await new Promise((resolve, reject) => {
    child.once('message', resolve);
    child.once('exit', (code) => reject(new Error(`server exited (${code})`)));
  });
  try {
    const seeded = [];
    const started = Date.now();
    for (let i = 0; i < LESSONS; i += 50) {
      const batch = Array.from({ length: Math.min(50, LESSONS - i) }, lesson);
      seeded.push(...batch);
      const transcript = batch.map((l) => l.text).join('\n');
      const r = await post(url, '/api/extract', {
        transcript,
        sessionId: `seed-${i}`,
        agent: 'bench',
        workspace: `ws-${i % 7}`,
      });
      if (r.status !== 200) throw new Error(`seed: ${r.status} ${JSON.stringify(r.body)}`);
    }
    const gates = (await (await fetch(`${url}/api/gates`)).json()).vectordb;
    console.log(
      `seeded ${LESSONS} lessons in ${((Date.now() - started) / 1000).toFixed(1)} s; engine ${gates.engine}, ${gates.vectorsIndexed} vectors`,
    );
    const interceptBody = () => {
      const l = seeded[Math.floor(Math.random() * seeded.length)];
      const words = l.text.split(' ');
      return {
        toolName: 'Bash',
        toolInput: { command: `${words[2]} ${words[3]} ${words[6]}` },
        context: { workspace: 'ws-1', sessionId: 'bench' },
      };
    };
    await run(url, CLIENTS, WARMUP, interceptBody, '/api/intercept', 200);
    const i10 = await run(url, CLIENTS, DURATION, interceptBody, '/api/intercept', 200);
    console.log(
      `intercept, ${CLIENTS} clients: ${i10.rps} req/s, p50 ${i10.p50} ms, p95 ${i10.p95} ms, p99 ${i10.p99} ms (${i10.requests} requests, ${i10.bad} failed)`,
    );
    const i50 = await run(url, 50, DURATION, interceptBody, '/api/intercept', 200);
    console.log(
      `intercept, 50 clients: ${i50.rps} req/s, p50 ${i50.p50} ms, p95 ${i50.p95} ms, p99 ${i50.p99} ms (${i50.bad} failed)`,
    );
    const before = (await (await fetch(`${url}/api/gates`)).json()).judge;
    const p = await run(
      url,
      50,
      DURATION,
      () => ({
        toolName: 'Bash',
        toolInput: { command: 'make' },
        outcome: { success: true, error: null, duration_ms: 3 },
      }),
      '/api/posttool',
      202,
    );
    const accepted = p.requests - p.bad;
    console.log(
      `posttool, 50 clients: ${p.rps} accepted/s, p95 ${p.p95} ms (${accepted} accepted, ${p.bad} failed)`,
    );
    const drainStart = Date.now();
    let judge = (await (await fetch(`${url}/api/gates`)).json()).judge;
    while (judge.queueLength > 0 && Date.now() - drainStart < 300_000) {
      await new Promise((r) => setTimeout(r, 250));
      judge = (await (await fetch(`${url}/api/gates`)).json()).judge;
    }
    console.log(
      `judge: queue drained ${((Date.now() - drainStart) / 1000).toFixed(1)} s after the load; queue ${judge.queueLength}, ` +
        `judged in the last minute ${judge.processingRate} (before the load ${before.processingRate})`,
    );
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
  }
}

if (process.argv[2] === 'serve') serve();
else
  main().catch((error) => {
    console.error(error);
    process.exit(1);
  });
