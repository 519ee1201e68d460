#!/usr/bin/env node
/**
 * Event-window (CEP) benchmark. Prints:
 *  1. events through a sliding window with count and sum over 10,000 keys (in process, one core): per
 *     CPU-second of this process (one core's rate even when the machine is shared) and per wall second;
 *  2. events/s through session windows (10,000 keys, emitted on close);
 *  3. bytes per buffered event (heap after a full GC, with and without the original values kept) and
 *     bytes per key (100,000 keys), and that an expired key costs nothing;
 *  4. POST /api/v1/rule-engine/cep/{id}/simulate over HTTP with 10,000 events: latency (median, p95), the
 *     service in a child process of its own (its CPU per call measured there), the client in this one.
 *     A call's time runs from the request's start until the client holds the whole answer as text: the
 *     upload of the body (~660 KiB), the service's work, the transfer of the answer (~3.8 MB) and, in the
 *     client, joining its chunks and decoding them as UTF-8 (~2.5 ms of the figure on this machine). The
 *     answer is not parsed as JSON in the timed calls (only the first, a warm-up, is checked that way).
 *
 *   npm run bench:event-windows      (needs the build: the script is run by it after `turbo run build`)
 *   EVENTS=5000000 ROUNDS=5 HTTP_ROUNDS=20 override the sizes; SKIP_HTTP=1 skips part 4, ONLY_HTTP=1 runs it alone.
 * Run with `node --expose-gc` for the memory figures.
 */
const { WindowEngine } = require('../../libs/event-windows/dist');

const EVENTS = Number(process.env.EVENTS ?? 4_000_000);
const ROUNDS = Number(process.env.ROUNDS ?? 3);
const KEYS = 10_000;

function stream(n, keys, stepMs) {
  // keys pre-built (the engine's cost, not string building), time advancing `stepMs` per event
  const names = Array.from({ length: keys }, (_, i) => `user-${i}`);
  const order = new Uint32Array(n);
  let seed = 42;
  for (let i = 0; i < n; i++) {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    order[i] = seed % keys;
  }
  return { names, order, stepMs };
}

/** Wall time and this process's CPU time (user + system) of `fn`, in seconds. */
function timed(fn) {
  const c0 = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  fn();
  const wall = Number(process.hrtime.bigint() - t0) / 1e9;
  const c = process.cpuUsage(c0);
  return { wall, cpu: (c.user + c.system) / 1e6 };
}

const M = (x) => (x / 1e6).toFixed(2);

function throughput(label, makeEngine, s, n) {
  const wall = [];
  const cpu = [];
  for (let round = 0; round < ROUNDS; round++) {
    const engine = makeEngine();
    let check = 0;
    const t = timed(() => {
      let time = Date.UTC(2026, 10, 28);
      for (let i = 0; i < n; i++) {
        time += s.stepMs;
        engine.add(s.names[s.order[i]], time, i & 15);
        check += engine.lastCount;
      }
    });
    wall.push(n / t.wall);
    cpu.push(n / t.cpu);
    if (check === 0) console.log('(no result)');
  }
  const top = Math.max(...cpu);
  console.log(
    `${label}: ${Math.round(top).toLocaleString('en')} events per CPU-second, ` +
      `${Math.round(Math.max(...wall)).toLocaleString('en')} events/s wall (best of ${ROUNDS}; rounds CPU ` +
      `${cpu.map(M).join(', ')} M/s, wall ${wall.map(M).join(', ')} M/s)`,
  );
  return top;
}

function heap() {
  global.gc();
  global.gc();
  return process.memoryUsage().heapUsed + process.memoryUsage().arrayBuffers;
}

function memory() {
  if (typeof global.gc !== 'function') {
    console.log('memory: run with node --expose-gc for the memory figures');
    return;
  }
  for (const retainValues of [false, true]) {
    // 1,000 keys × 1,000 buffered events each (sliding window longer than the stream)
    const before = heap();
    const engine = new WindowEngine({ type: 'Sliding', sizeMs: 1e12, timeToLiveMs: 1e12, retainValues });
    let t = 0;
    for (let i = 0; i < 1_000_000; i++) engine.add(`k${i % 1000}`, ++t, (i % 1000) + 0.5);
    const after = heap();
    console.log(
      `bytes per buffered event (retainValues ${retainValues}): ${((after - before) / engine.bufferedEvents).toFixed(1)} ` +
        `(${engine.bufferedEvents.toLocaleString('en')} events in ${engine.keyCount} keys, numeric values)`,
    );
  }
  const before = heap();
  const engine = new WindowEngine({
    type: 'Sliding',
    sizeMs: 60_000,
    timeToLiveMs: 60_000,
    retainValues: false,
  });
  const keys = Array.from({ length: 100_000 }, (_, i) => `device-${i}`);
  const withKeys = heap();
  for (let i = 0; i < keys.length; i++) engine.add(keys[i], i, 1);
  const full = heap();
  console.log(
    `bytes per key holding one event (100,000 keys, key strings excluded): ${((full - withKeys) / keys.length).toFixed(0)}`,
  );
  engine.advance(1e9);
  const expired = heap();
  console.log(
    `after the time-to-live: ${engine.keyCount} keys, ${engine.bufferedEvents} events, ${((expired - withKeys) / 1024).toFixed(0)} KiB left over the key strings (${before > 0 ? 'ok' : ''})`,
  );
}

/**
 * The decisions service in a child process of its own (as a real client is another process: the client's
 * reading of a 4 MB answer is not charged to the service's event loop); it reports its own CPU time on request.
 */
async function serviceChild() {
  const { startDecisions } = require('../../apps/decisions/dist');
  const service = await startDecisions({
    environment: 'Testing',
    env: {},
    port: 0,
    host: '127.0.0.1',
    overrides: {
      'ConnectionStrings:DecisionTablesDb': 'pglite://memory',
      'Logging:Level': 'silent',
      'Http:BodyLimitBytes': String(8 * 1024 * 1024),
    },
  });
  process.on('message', async (m) => {
    if (m === 'cpu') {
      const c = process.cpuUsage();
      process.send({ cpuMs: (c.user + c.system) / 1000 });
    } else if (m === 'stop') {
      await service.close();
      process.exit(0);
    }
  });
  process.send({ url: service.url });
}

function startServiceChild() {
  const child = require('node:child_process').fork(__filename, [], {
    env: { ...process.env, EVENT_WINDOWS_BENCH_CHILD: '1' },
  });
  const next = () => new Promise((resolve) => child.once('message', resolve));
  return next().then(({ url }) => ({
    url,
    cpuMs: () => (child.send('cpu'), next().then((m) => m.cpuMs)),
    close: () => new Promise((resolve) => (child.once('exit', resolve), child.send('stop'))),
  }));
}

async function http() {
  const service = await startServiceChild();
  const headers = { 'content-type': 'application/json', 'x-tenant-id': 'bench' };
  const base = `${service.url}/api/v1/rule-engine/cep`;
  try {
    await fetch(`${base}/logins`, {
      method: 'PUT',
      headers,
      body: JSON.stringify({
        Name: 'Logins',
        WindowType: 'Sliding',
        WindowSize: 'PT10M',
        TimeToLive: 'PT1H',
        CorrelationKey: 'userId',
        Aggregates: ['count', 'sum'],
      }),
    });
    const start = Date.UTC(2026, 10, 28);
    // contents at the default bound (the 3 most recent events of each window, the rest in `Truncated`)
    const body = JSON.stringify({
      Events: Array.from({ length: 10_000 }, (_, i) => ({
        Key: `user-${i % 1000}`,
        Timestamp: new Date(start + i * 100).toISOString(),
        Value: i % 5,
      })),
    });
    const rounds = Number(process.env.HTTP_ROUNDS ?? 15);
    const times = [];
    const cpus = [];
    const serviceCpus = [];
    let bytes = 0;
    for (let i = 0; i < rounds + 3; i++) {
      const c0 = process.cpuUsage();
      const s0 = await service.cpuMs();
      const t0 = performance.now();
      const res = await post(`${base}/logins/simulate`, headers, body);
      const text = res.text;
      const ms = performance.now() - t0;
      if (res.status !== 200) throw new Error(`simulate answered ${res.status}: ${text.slice(0, 200)}`);
      if (!/^application\/json/.test(res.headers.get('content-type') ?? ''))
        throw new Error(`simulate answered ${res.headers.get('content-type')}`);
      if (i === 0 && JSON.parse(text).Results.length !== 10_000)
        throw new Error('simulate: not 10,000 results');
      bytes = text.length;
      const c = process.cpuUsage(c0);
      const serviceMs = (await service.cpuMs()) - s0;
      if (i >= 3) {
        // 3 warm-up calls
        times.push(ms);
        cpus.push((c.user + c.system) / 1000);
        serviceCpus.push(serviceMs);
      }
    }
    times.sort((a, b) => a - b);
    cpus.sort((a, b) => a - b);
    serviceCpus.sort((a, b) => a - b);
    const q = (p) => times[Math.min(times.length - 1, Math.floor(p * times.length))];
    console.log(
      `simulate over HTTP, 10,000 events (${(body.length / 1024).toFixed(0)} KiB in, ${(bytes / 1024).toFixed(0)} KiB out): ` +
        `median ${q(0.5).toFixed(1)} ms, p95 ${q(0.95).toFixed(1)} ms, best ${times[0].toFixed(1)} ms (${rounds} calls); ` +
        `CPU per call: service (its own process) median ${serviceCpus[serviceCpus.length >> 1].toFixed(1)} ms, best ${serviceCpus[0].toFixed(1)} ms; ` +
        `client median ${cpus[cpus.length >> 1].toFixed(1)} ms`,
    );
  } finally {
    agent.destroy();
    await service.close();
  }
}

/**
 * POST with node:http and a keep-alive agent: the client's own cost stays small (fetch reads a 4 MB answer
 * through web streams, which cost as much CPU as the service's work in a profile).
 */
const agent = new (require('node:http').Agent)({ keepAlive: true });
function post(url, headers, body) {
  return new Promise((resolve, reject) => {
    const req = require('node:http').request(
      url,
      { method: 'POST', agent, headers: { ...headers, 'content-length': Buffer.byteLength(body) } },
      (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () =>
          resolve({
            status: res.statusCode,
            headers: { get: (name) => res.headers[name] },
            text: Buffer.concat(chunks).toString('utf8'),
          }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** The machine's speed right now (it is shared): a bare Map lookup + count/sum per event, same stream. */
function calibrate(s, n) {
  let wall = 0;
  let cpu = 0;
  for (let round = 0; round < ROUNDS; round++) {
    const m = new Map(s.names.map((k) => [k, { count: 0, sum: 0 }]));
    const t = timed(() => {
      for (let i = 0; i < n; i++) {
        const o = m.get(s.names[s.order[i]]);
        o.count++;
        o.sum += i & 15;
      }
    });
    wall = Math.max(wall, n / t.wall);
    cpu = Math.max(cpu, n / t.cpu);
  }
  console.log(
    `calibration (bare Map.get + count/sum per event, no window): ${Math.round(cpu).toLocaleString('en')} per CPU-second, ` +
      `${Math.round(wall).toLocaleString('en')} events/s wall`,
  );
}

function load() {
  const [one, five] = require('node:os').loadavg();
  return `load average ${one.toFixed(2)} (1 min), ${five.toFixed(2)} (5 min) on ${require('node:os').cpus().length} cores`;
}

async function main() {
  if (process.env.EVENT_WINDOWS_BENCH_CHILD) return serviceChild();
  console.log(
    `event windows benchmark — node ${process.version}, ${EVENTS.toLocaleString('en')} events per round; ${load()}`,
  );
  console.log(
    "(events per CPU-second: this process's own CPU time, so one core's rate even on a busy machine; wall: elapsed)",
  );
  if (process.env.ONLY_HTTP) {
    await http();
    console.log(`end: ${load()}`);
    return;
  }
  const s = stream(EVENTS, KEYS, 1);
  calibrate(s, EVENTS);
  throughput(
    'sliding (10 min), count + sum, 10,000 keys',
    () =>
      new WindowEngine({ type: 'Sliding', sizeMs: 600_000, timeToLiveMs: 3_600_000, retainValues: false }),
    s,
    EVENTS,
  );
  throughput(
    'sliding (10 min), count + sum, 10,000 keys, values kept',
    () => new WindowEngine({ type: 'Sliding', sizeMs: 600_000, timeToLiveMs: 3_600_000 }),
    s,
    EVENTS,
  );
  // sessions: a key's events are 10,000 ms apart on average; a 5 s gap closes about every other one
  let closed = 0;
  throughput(
    'session (gap 5 s), 10,000 keys, emitted on close',
    () =>
      new WindowEngine(
        { type: 'Session', sizeMs: 5_000, timeToLiveMs: 60_000, retainValues: false },
        () => closed++,
      ),
    s,
    EVENTS,
  );
  console.log(`  (${closed.toLocaleString('en')} sessions closed over all rounds)`);
  memory();
  if (!process.env.SKIP_HTTP) await http();
  console.log(`end: ${load()}`);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
