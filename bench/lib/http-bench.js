/**
 * Shared plumbing of the HTTP benchmarks (bench/decision-tables/http.js, bench/control-plane/execute.js):
 * servers in child processes of the benchmark file, a bare Fastify peer, autocannon load, and the
 * side-by-side report. Settings from the environment: DURATION, WARMUP, CONNECTIONS, ROUNDS;
 * SERVER_NODE_OPTIONS is passed to the server processes (e.g. `--cpu-prof`).
 */
const { fork } = require('node:child_process');

const settings = {
  duration: Number(process.env.DURATION ?? 10),
  warmup: Number(process.env.WARMUP ?? 3),
  connections: Number(process.env.CONNECTIONS ?? 100),
  rounds: Number(process.env.ROUNDS ?? 3),
};

/** Forks `file serve <kind> …extra` and resolves with the child and the first message it sends. */
function startServer(file, kind, extra = []) {
  const child = fork(file, ['serve', kind, ...extra], {
    execArgv: process.env.SERVER_NODE_OPTIONS ? process.env.SERVER_NODE_OPTIONS.split(' ') : [],
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  return new Promise((resolve, reject) => {
    child.once('message', (m) => resolve({ child, ...m }));
    child.once('exit', (code) => reject(new Error(`${kind} server exited (${code})`)));
  });
}

/** In a server process: a bare Fastify route answering `constant` (same JSON in, parsed; same size out). */
async function serveBareFastify(path, constant, bodies) {
  const fastify = require('fastify')({ logger: false });
  fastify.post(path, async () => constant);
  await fastify.listen({ port: 0, host: '127.0.0.1' });
  process.send({ url: `http://127.0.0.1:${fastify.server.address().port}`, path, bodies });
}

/** autocannon against a started server (its `bodies` in turn); `during` runs alongside the load. */
async function load(target, duration, { failOnErrors = true, during } = {}) {
  const autocannon = require('autocannon');
  const run = autocannon({
    url: target.url,
    connections: settings.connections,
    duration,
    requests: target.bodies.map((body) => ({
      method: 'POST',
      path: target.path,
      headers: { 'content-type': 'application/json', 'x-tenant-id': 'bench' },
      body,
    })),
  });
  if (during) during().catch((e) => console.error('helper during the load failed:', e.message));
  const result = await run;
  const bad = result.non2xx + result.errors + result.timeouts;
  if (bad && failOnErrors) throw new Error(`${target.url}${target.path}: ${bad} failed requests`);
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    ok: result['2xx'],
    bad,
  };
}

function stopServers(...targets) {
  for (const target of targets) {
    if (!target) continue;
    target.child.removeAllListeners('exit');
    target.child.kill();
  }
}

/**
 * Prints both servers' best rounds and the ratio against the goals: best round against best round, and the
 * median of the rounds' own ratios (each round of ours beside the bare round that follows it, so a machine
 * whose speed drifts during the run weighs on both alike).
 */
function report(label, runs, goals) {
  const best = (list) => list.reduce((a, b) => (b.rps > a.rps ? b : a));
  const o = best(runs.ours);
  const b = best(runs.bare);
  const width = Math.max(label.length, 30) + 2;
  const row = (name, r, all) =>
    `${name.padEnd(width)} ${Math.round(r.rps).toLocaleString('en-US').padStart(8)} req/s   p50 ${String(r.p50).padStart(3)} ms   p99 ${String(r.p99).padStart(3)} ms` +
    (all.length > 1 ? `   (rounds: ${all.map((x) => Math.round(x.rps)).join(', ')})` : '');
  console.log(row(label, o, runs.ours));
  console.log(row('bare Fastify (constant answer)', b, runs.bare));
  const ratios = runs.ours.map((x, k) => x.rps / runs.bare[k].rps);
  const sorted = [...ratios].sort((a, b) => a - b);
  const median =
    sorted.length % 2
      ? sorted[(sorted.length - 1) / 2]
      : (sorted[sorted.length / 2 - 1] + sorted[sorted.length / 2]) / 2;
  const percent = (r) => `${(100 * r).toFixed(0)}%`;
  console.log(
    `\nratio ${percent(o.rps / b.rps)} of bare Fastify (best vs best), median per round ${percent(median)} ` +
      `(rounds ${ratios.map(percent).join(', ')}; goal ≥ ${goals.ratioPercent}%), p99 ${o.p99} ms (goal < ${goals.p99Ms} ms; bare Fastify's p99 ${b.p99} ms)`,
  );
}

function header(database) {
  console.log(
    `node ${process.version}, ${settings.connections} connections, ${settings.rounds} round(s) of ${settings.duration} s per server after ${settings.warmup} s warm-up,` +
      ` alternating; each server in its own child process; best round shown (shared machine)${database ? `; database ${database}` : ''}\n`,
  );
}

module.exports = { settings, startServer, serveBareFastify, load, stopServers, report, header };
