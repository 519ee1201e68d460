/**
 * A CPU profile of this process's main thread (the event loop every service of the run shares; worker
 * threads are not in it) around one request: how long the thread was busy, its longest busy stretch
 * (consecutive samples that are not idle: the stall a probe can wait behind) and what ran in that
 * stretch, by function (self time) and by the nearest frame of Arbiter's own code (apps/, libs/).
 * On a loaded machine a wall-clock p99 also counts the time other processes held the core; the
 * profile says what this thread itself ran.
 *   PROFILE=1     print the summary per request
 *   PROFILE=dir   also write dir/<n>.cpuprofile (open in Chrome DevTools)
 */
const fs = require('node:fs');
const path = require('node:path');
const { Session } = require('node:inspector');

const PROFILE = process.env.PROFILE;
let session = null;
let count = 0;
const INTERVAL_US = 500;

function post(method, params) {
  return new Promise((resolve, reject) =>
    session.post(method, params, (err, result) => (err ? reject(err) : resolve(result))),
  );
}

async function startProfile() {
  if (!PROFILE) return null;
  if (session === null) {
    session = new Session();
    session.connect();
    await post('Profiler.enable');
    await post('Profiler.setSamplingInterval', { interval: INTERVAL_US });
  }
  await post('Profiler.start');
  return true;
}

const short = (frame) => {
  const file = frame.url
    ? frame.url.replace(/^file:\/\//, '').replace(/^.*\/(apps|libs|node_modules)\//, '$1/')
    : '';
  return `${frame.functionName || '(anonymous)'}${file ? ` ${file}:${frame.lineNumber + 1}` : ''}`;
};
const own = (frame) =>
  /\/(apps|libs)\/[^/]+\/(dist|src)\//.test(frame.url) && !/node_modules/.test(frame.url);

function top(map, n) {
  return [...map.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(([k, us]) => `${(us / 1000).toFixed(0)} ms ${k}`)
    .join('; ');
}

/** Stops the profile and returns its summary (and writes it when PROFILE names a folder). */
async function stopProfile(started) {
  if (!started) return null;
  const { profile } = await post('Profiler.stop');
  if (PROFILE !== '1') {
    fs.mkdirSync(PROFILE, { recursive: true });
    fs.writeFileSync(path.join(PROFILE, `${++count}.cpuprofile`), JSON.stringify(profile));
  }
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const ownFrame = new Map();
  const ownOf = (id) => {
    if (ownFrame.has(id)) return ownFrame.get(id);
    const n = byId.get(id);
    const found = own(n.callFrame)
      ? short(n.callFrame)
      : parent.has(id)
        ? ownOf(parent.get(id))
        : '(not ours)';
    ownFrame.set(id, found);
    return found;
  };
  const idle = (id) => byId.get(id).callFrame.functionName === '(idle)';
  const { samples, timeDeltas } = profile;
  // a sample's time is the delta to the next one
  let busy = 0;
  let gc = 0;
  let best = { from: 0, to: 0, us: 0 };
  let from = -1;
  let run = 0;
  let busySamples = 0;
  for (let i = 0; i < samples.length; i++) {
    const us = timeDeltas[i + 1] ?? 0;
    if (idle(samples[i])) {
      if (from >= 0 && run > best.us) best = { from, to: i, us: run };
      from = -1;
      run = 0;
      continue;
    }
    busy += us;
    busySamples++;
    if (byId.get(samples[i]).callFrame.functionName === '(garbage collector)') gc += us;
    if (from < 0) from = i;
    run += us;
  }
  if (from >= 0 && run > best.us) best = { from, to: samples.length, us: run };
  const self = new Map();
  const ours = new Map();
  let stretchGc = 0;
  for (let i = best.from; i < best.to; i++) {
    const us = timeDeltas[i + 1] ?? 0;
    const n = byId.get(samples[i]);
    if (n.callFrame.functionName === '(garbage collector)') stretchGc += us;
    const k = short(n.callFrame);
    self.set(k, (self.get(k) ?? 0) + us);
    const o = ownOf(samples[i]);
    ours.set(o, (ours.get(o) ?? 0) + us);
  }
  const ms = (us) => (us / 1000).toFixed(0);
  // a sample is taken when the thread runs: samples × interval is about its own CPU time, while the wall
  // time of a stretch also counts the time other processes held the core
  const cpu = (samples) => ((samples * INTERVAL_US) / 1000).toFixed(0);
  return (
    `    main thread busy ${ms(busy)} ms wall, ~${cpu(busySamples)} ms CPU (GC ${ms(gc)} wall); ` +
    `longest busy stretch ${ms(best.us)} ms wall, ~${cpu(best.to - best.from)} ms CPU (GC ${ms(stretchGc)} wall)\n` +
    `      self: ${top(self, 6)}\n` +
    `      our frame: ${top(ours, 6)}`
  );
}

module.exports = { startProfile, stopProfile };
