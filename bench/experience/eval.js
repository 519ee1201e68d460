#!/usr/bin/env node
/**
 * Evaluation of the experience service on scripted sessions (bench/experience/sessions.js, 32 sessions,
 * 64 repeated situations in other words, 8 unrelated calls), local embedder, no model:
 * 1. each session's transcript is extracted (its lessons are the relevant ones for its repeats), then the
 *    recurrences (the same mistakes in later sessions, other words);
 * 2. every repeat is intercepted: hit@3 (interception rate: a relevant lesson among the ≤ 3 suggestions),
 *    precision@3 (relevant suggestions / suggestions shown, over calls that got any), silence on unrelated
 *    calls; a hit is then reported as followed and successful (posttool) so the judge counts a mistake avoided;
 * 3. evolve, then the same probes again: the number of active lessons before and after, and the hits kept
 *    (abstraction replaces clustered lessons by a principle: a suggestion of that principle counts as a hit
 *    for the sessions whose lessons it generalizes).
 *   npm run build && node bench/experience/eval.js            (BENCH_DATABASE_URL for PostgreSQL)
 */
const { SESSIONS, RECURRENCES, UNRELATED } = require('./sessions');

async function main() {
  const { startIdentity } = require('../../apps/identity/dist');
  const service = await startIdentity({
    environment: 'Testing',
    env: {},
    port: 0,
    host: '127.0.0.1',
    overrides: {
      'ConnectionStrings:LicenseDb': process.env.BENCH_DATABASE_URL ?? 'pglite://memory',
      'Logging:Level': 'silent',
      'Experience:RateLimitPerMinute': 1000000,
      'Experience:JudgeIntervalMs': 50,
      ...(process.env.CLUSTER ? { 'Experience:ClusterSimilarity': Number(process.env.CLUSTER) } : {}),
      'Experience:FileStoreDir': require('node:path').join(
        require('node:os').tmpdir(),
        `arbiter-exp-eval-${process.pid}`,
      ),
    },
  });
  const post = async (path, body) => {
    const res = await fetch(`${service.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const json = await res.json();
    if (res.status >= 300) throw new Error(`${path}: ${res.status} ${JSON.stringify(json)}`);
    return json;
  };
  const get = async (path) => (await fetch(`${service.url}${path}`)).json();

  try {
    const relevant = new Map(); // session id -> Set of entry ids
    for (const s of SESSIONS) {
      const r = await post('/api/extract', {
        transcript: s.transcript,
        sessionId: s.id,
        agent: 'eval',
        workspace: s.workspace,
      });
      relevant.set(s.id, new Set(r.lessons.map((l) => l.id)));
    }
    for (const [id, transcript] of RECURRENCES) {
      const s = SESSIONS.find((x) => x.id === id);
      const r = await post('/api/extract', {
        transcript,
        sessionId: `${id}-again`,
        agent: 'eval',
        workspace: s.workspace,
      });
      for (const l of r.lessons) relevant.get(id).add(l.id);
    }
    const lessonsBefore = (await get('/api/stats')).knowledge;

    async function probe(label, followUp) {
      let calls = 0,
        answered = 0,
        hits = 0,
        shown = 0,
        relevantShown = 0,
        silentUnrelated = 0;
      const misses = [];
      for (const s of SESSIONS) {
        for (const [i, call] of s.repeats.entries()) {
          calls++;
          const sessionId = `${label}-${s.id}-${i}`;
          const r = await post('/api/intercept', {
            ...call,
            context: { ...(call.context ?? {}), workspace: s.workspace, sessionId },
          });
          const ids = [...(r.suggestions ?? '').matchAll(/pointId: ([0-9a-f-]{36})/g)].map((m) => m[1]);
          const good = ids.filter((id) => relevant.get(s.id).has(id));
          if (ids.length) answered++;
          shown += ids.length;
          relevantShown += good.length;
          if (good.length) hits++;
          else misses.push(`${s.id}#${i}`);
          if (followUp && good.length) {
            await post('/api/posttool', {
              ...call,
              outcome: { success: true, error: null, duration_ms: 10 },
              suggestions: r.suggestions,
              context: { sessionId },
            });
          }
        }
      }
      for (const call of UNRELATED) {
        const r = await post('/api/intercept', call);
        if (!r.hasSuggestions) silentUnrelated++;
      }
      return {
        calls,
        interceptionRate: hits / calls,
        precisionAt3: shown ? relevantShown / shown : 0,
        answered,
        hitAt3: hits,
        silentOnUnrelated: `${silentUnrelated}/${UNRELATED.length}`,
        misses,
      };
    }

    const before = await probe('before', true);
    // let the judge catch up
    for (let i = 0; i < 100 && (await get('/api/gates')).judge.queueLength > 0; i++)
      await new Promise((r) => setTimeout(r, 100));
    const statsAfterJudge = await get('/api/stats');
    const evolved = await post('/api/evolve');
    // principles: a principle generalizing a session's lessons is relevant for it
    for (const s of SESSIONS) {
      for (const id of [...relevant.get(s.id)]) {
        const g = await get(`/api/graph?id=${id}&types=generalizes,supersedes`);
        for (const e of g.edges ?? [])
          for (const t of e.targets) if (t.direction === 'in') relevant.get(s.id).add(t.id);
      }
    }
    const lessonsAfter = (await get('/api/stats')).knowledge;
    const after = await probe('after', false);
    const sum = (k) => Object.values(k).reduce((a, b) => a + b, 0);
    const result = {
      sessions: SESSIONS.length,
      repeats: before.calls,
      before: { ...before, misses: before.misses.join(', ') },
      judge: {
        verdicts: statsAfterJudge.verdicts,
        mistakesAvoided: statsAfterJudge.mistakesAvoided,
        hitRate: statsAfterJudge.hitRate,
      },
      evolve: evolved,
      activeEntries: { before: sum(lessonsBefore), after: sum(lessonsAfter), tiersAfter: lessonsAfter },
      after: { ...after, misses: after.misses.join(', ') },
      hitsLostByEvolve: before.hitAt3 - after.hitAt3,
    };
    console.log(JSON.stringify(result, null, 2));
  } finally {
    await service.close();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
