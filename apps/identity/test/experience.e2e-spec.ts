import { startServiceForTest, ServiceUnderTest } from '@arbiter/testing';
import { identityService } from '../src';
import { call } from './helpers';

const TOKEN = 'experience-token-0123456789abcdef';
const auth = { authorization: `Bearer ${TOKEN}` };

const TRANSCRIPT_A = `
user: run the tests
[Bash] npm test
error: Cannot find module '@arbiter/platform' from jest.preset.js
assistant: The libs must be built first; run npm run build before npm test in a fresh worktree.
`;
const TRANSCRIPT_B = `
[Bash] git push origin main
error: failed to push some refs: updates were rejected because the remote contains work
assistant: Use git pull --rebase before pushing instead of forcing the push.
Lesson: never use git push --force on a shared branch
`;

describe('experience service', () => {
  let sut: ServiceUnderTest;
  let base: string;
  const post = (path: string, body: unknown, headers: Record<string, string> = auth) =>
    call(base, 'POST', path, { body, headers });
  const get = (path: string, headers: Record<string, string> = auth) => call(base, 'GET', path, { headers });

  beforeAll(async () => {
    sut = await startServiceForTest(identityService, 'ConnectionStrings:LicenseDb', {
      overrides: {
        'Experience:ServerAuthToken': TOKEN,
        'Experience:JudgeIntervalMs': 50,
        'Experience:FileStoreDir': `/tmp/arbiter-exp-test-${process.pid}`,
      },
    });
    base = sut.url;
  }, 120_000);
  afterAll(() => sut?.stop());

  it('answers /health with the stores and /api/gates naming the vector engine', async () => {
    const health = await call(base, 'GET', '/health');
    expect(health.status).toBe(200);
    expect(health.body).toMatchObject({
      status: 'ok',
      vectordb: { status: 'ok' },
      fileStore: { status: 'ok' },
    });
    const gates = await get('/api/gates');
    expect(gates.status).toBe(200);
    expect(gates.body).toMatchObject({
      ready: true,
      vectordb: { available: true, healthy: true },
      fileStore: { available: true, healthy: true },
      judge: { queueLength: expect.any(Number), processingRate: expect.any(Number) },
    });
    const expected = process.env.TEST_DATABASE_URL ? 'exact-in-process' : 'pgvector-hnsw';
    expect(gates.body.vectordb.engine).toBe(expected);
  });

  it('wants the bearer token: missing and wrong are 401 with the error body', async () => {
    const missing = await post('/api/intercept', { toolName: 'Bash', toolInput: {} }, {});
    expect(missing.status).toBe(401);
    expect(missing.body).toEqual({
      error: expect.any(String),
      code: 'EXPERIENCE_TOKEN_MISSING',
      timestamp: expect.any(String),
    });
    const wrong = await post(
      '/api/intercept',
      { toolName: 'Bash', toolInput: {} },
      { authorization: 'Bearer nope' },
    );
    expect(wrong.status).toBe(401);
    expect(wrong.body.code).toBe('EXPERIENCE_TOKEN_INVALID');
  });

  it('rejects malformed input with 400 and the error body', async () => {
    const res = await post('/api/intercept', { toolName: '', toolInput: 'x' });
    expect(res.status).toBe(400);
    expect(Object.keys(res.body).sort()).toEqual(['code', 'error', 'timestamp']);
    const feedback = await post('/api/feedback', {
      pointId: 'not-a-uuid',
      collection: 'lessons',
      verdict: 'maybe',
    });
    expect(feedback.status).toBe(400);
  });

  let lessonId = '';
  it('extracts lessons into T3 and intercepts a paraphrased call with them', async () => {
    const a = await post('/api/extract', {
      transcript: TRANSCRIPT_A,
      sessionId: 's1',
      agent: 'claude-code',
      workspace: 'repo-a',
    });
    expect(a.status).toBe(200);
    expect(a.body.count).toBeGreaterThanOrEqual(1);
    expect(a.body.lessons[0]).toMatchObject({
      tier: 'T3',
      id: expect.any(String),
      pattern: expect.any(String),
    });
    expect(a.body.extractor).toBe('heuristic');
    const b = await post('/api/extract', {
      transcript: TRANSCRIPT_B,
      sessionId: 's2',
      agent: 'claude-code',
      workspace: 'repo-b',
    });
    expect(b.body.count).toBeGreaterThanOrEqual(1);
    lessonId = a.body.lessons[0].id;

    const hit = await post('/api/intercept', {
      toolName: 'Bash',
      toolInput: { command: 'npm test' },
      context: { workspace: 'repo-a', sessionId: 's3' },
    });
    expect(hit.status).toBe(200);
    expect(hit.body.hasSuggestions).toBe(true);
    expect(hit.body.suggestions).toContain(`pointId: ${lessonId}, collection: lessons`);

    const miss = await post('/api/intercept', {
      toolName: 'Read',
      toolInput: { file_path: '/etc/hostname' },
      context: { sessionId: 's3' },
    });
    expect(miss.body).toEqual({ suggestions: null, hasSuggestions: false });
  });

  it('queues posttool (202), judges it in the background, and records feedback from the suggestion text', async () => {
    const hit = await post('/api/intercept', {
      toolName: 'Bash',
      toolInput: { command: 'npm test' },
      context: { sessionId: 's4' },
    });
    const queued = await post('/api/posttool', {
      toolName: 'Bash',
      toolInput: { command: 'npm run build && npm test' },
      outcome: { success: true, error: null, duration_ms: 1200 },
      suggestions: hit.body.suggestions,
      context: { sessionId: 's4' },
    });
    expect(queued.status).toBe(202);
    expect(queued.body.judgeJobId).toMatch(/^[0-9a-f-]{36}$/);
    const deadline = Date.now() + 20_000;
    let stats = await get('/api/stats');
    // the judge runs in the background; interceptions are logged in batches off the request
    while ((stats.body.verdicts.followed < 1 || stats.body.totalInterceptions < 1) && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100));
      stats = await get('/api/stats');
    }
    expect(stats.body.verdicts.followed).toBeGreaterThanOrEqual(1);
    expect(stats.body.mistakesAvoided).toBeGreaterThanOrEqual(1);
    expect(stats.body.totalInterceptions).toBeGreaterThanOrEqual(1);
    expect(stats.body.knowledge.T3).toBeGreaterThanOrEqual(1);

    const fb = await post('/api/feedback', { pointId: lessonId, collection: 'lessons', verdict: 'followed' });
    expect(fb.status).toBe(200);
    expect(fb.body).toEqual({
      recorded: true,
      verdict: 'followed',
      pointId: lessonId,
      collection: 'lessons',
    });
    const unknown = await post('/api/feedback', {
      pointId: '00000000-0000-4000-8000-000000000000',
      collection: 'lessons',
      verdict: 'ignored',
    });
    expect(unknown.status).toBe(404);
    expect(unknown.body.code).toBe('ENTRY_NOT_FOUND');
  });

  it('promotes on evidence, is idempotent, and the timeline shows it', async () => {
    await post('/api/feedback', { pointId: lessonId, collection: 'lessons', verdict: 'followed' });
    const first = await post('/api/evolve', undefined);
    expect(first.status).toBe(200);
    expect(first.body.promoted).toBeGreaterThanOrEqual(1);
    const again = await post('/api/evolve', undefined);
    expect(again.body).toMatchObject({ promoted: 0, abstracted: 0, archived: 0 });
    const timeline = await get(`/api/timeline?topic=${encodeURIComponent('npm test')}`);
    expect(timeline.status).toBe(200);
    const types = timeline.body.events.map((e: { type: string }) => e.type);
    expect(types).toContain('promoted');
    expect(types).toContain('extracted');
    const promoted = timeline.body.events.find((e: { type: string }) => e.type === 'promoted');
    expect(promoted).toMatchObject({ id: lessonId, from: 'T3', to: 'T2', tier: 'T2' });
    expect((await get('/api/timeline')).status).toBe(400);
  });

  it('archives a lesson after three ignores', async () => {
    const r = await post('/api/extract', {
      transcript: 'Lesson: always pin the docker base image digest in Dockerfiles',
      sessionId: 's5',
      agent: 'codex',
      workspace: 'repo-c',
    });
    const id = r.body.lessons[0].id;
    for (let i = 0; i < 3; i++)
      await post('/api/feedback', { pointId: id, collection: 'lessons', verdict: 'ignored' });
    const evolved = await post('/api/evolve', undefined);
    expect(evolved.body.archived).toBeGreaterThanOrEqual(1);
    const res = await post('/api/intercept', {
      toolName: 'Edit',
      toolInput: { file_path: 'Dockerfile', new_string: 'FROM node base image digest' },
    });
    expect(res.body.suggestions ?? '').not.toContain(id);
  });

  it('supersedes a contradicted lesson and abstracts a cluster into a principle with generalizes edges', async () => {
    const old = await post('/api/extract', {
      transcript: 'Lesson: when the port 3000 is already in use, kill the process holding port 3000',
      sessionId: 's6',
      agent: 'codex',
      workspace: 'repo-d',
    });
    const newer = await post('/api/extract', {
      transcript:
        'Lesson: when the port 3000 is already in use, never kill it; start the server on a free port instead',
      sessionId: 's7',
      agent: 'codex',
      workspace: 'repo-d',
    });
    const oldId = old.body.lessons[0].id;
    const newId = newer.body.lessons[0].id;
    expect(newId).not.toBe(oldId);
    const graph = await get(`/api/graph?id=${newId}&types=supersedes`);
    expect(graph.status).toBe(200);
    expect(graph.body.edges).toEqual([
      { type: 'supersedes', targets: [expect.objectContaining({ id: oldId, status: 'archived' })] },
    ]);
    expect((await get(`/api/graph?id=${newId}&types=bogus`)).status).toBe(400);
    expect((await get(`/api/graph?id=00000000-0000-4000-8000-000000000000`)).status).toBe(404);

    const variants = [
      'Lesson: run prisma migrate deploy before starting the api server after a schema change',
      'Lesson: after changing the prisma schema run prisma migrate deploy before the api server starts',
      'Lesson: the api server fails on start until prisma migrate deploy has run for the new schema',
    ];
    for (const [i, t] of variants.entries()) {
      await post('/api/extract', { transcript: t, sessionId: `p${i}`, agent: 'codex', workspace: 'repo-e' });
    }
    const evolved = await post('/api/evolve', undefined);
    expect(evolved.body.abstracted).toBeGreaterThanOrEqual(1);
    const hit = await post('/api/intercept', {
      toolName: 'Bash',
      toolInput: { command: 'npm run start:api after editing schema.prisma' },
    });
    expect(hit.body.hasSuggestions).toBe(true);
    const principleId = hit.body.suggestions.match(/pointId: ([0-9a-f-]{36}), collection: principles/)?.[1];
    expect(principleId).toBeDefined();
    const pg = await get(`/api/graph?id=${principleId}&types=generalizes`);
    expect(pg.body.edges[0].targets.length).toBeGreaterThanOrEqual(3);

    const shared = await post('/api/principles/share', { id: principleId, format: 'json' });
    expect(shared.status).toBe(200);
    expect(shared.body).toMatchObject({
      id: principleId,
      exported: true,
      sourceExamples: expect.any(Array),
      tags: expect.any(Array),
    });
    const imported = await post('/api/principles/import', { principle: shared.body, source: 'other-team' });
    expect(imported.status).toBe(200);
    expect(imported.body).toMatchObject({ imported: true, mergedWithExisting: true });
    const fresh = await post('/api/principles/import', {
      principle: {
        text: 'Prefer small pull requests that change one thing',
        confidence: 0.9,
        sourceExamples: [],
        tags: ['pr'],
      },
      source: 'handbook',
    });
    expect(fresh.body).toMatchObject({ imported: true, mergedWithExisting: false, tier: 'T3' });
  });

  it('routes models and tasks by keyword, saying which layer decided', async () => {
    const deep = await post('/api/route-model', {
      task: 'design the migration of the billing architecture',
      runtime: 'claude-code',
    });
    expect(deep.status).toBe(200);
    expect(deep.body).toMatchObject({
      tier: 'deep',
      model: 'claude-opus',
      reasoningEffort: 'high',
      source: 'keyword',
    });
    const vague = await post('/api/route-model', { task: 'hmm', runtime: 'codex' });
    expect(vague.body.source).toBe('keyword');
    expect(vague.body.reasoning).toMatch(/no chat model configured/);
    const task = await post('/api/route-task', {
      task: 'fix the crash when the config file is missing',
      runtime: 'codex',
      context: { repo: 'x', scope: 'cli' },
    });
    expect(task.status).toBe(200);
    expect(task.body).toMatchObject({
      workflow: 'bugfix',
      recommendedSkill: expect.any(String),
      alternatives: expect.any(Array),
    });
  });

  it('pil-context classifies and caches for 300 s; brain answers by the heuristic path without a model', async () => {
    const body = { toolName: 'Bash', toolInput: { command: 'rm -rf /tmp/build' }, workspace: 'repo-a' };
    const first = await post('/api/pil-context', body);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({
      classification: { risk: 'high', category: 'destructive-shell' },
      cacheHit: false,
      ttl: 300,
    });
    const second = await post('/api/pil-context', body);
    expect(second.body.cacheHit).toBe(true);
    const brain = await post('/api/brain', {
      messages: [{ role: 'user', content: 'how do I run npm test in a fresh worktree?' }],
    });
    expect(brain.status).toBe(200);
    expect(brain.body).toMatchObject({
      model: 'heuristic:experience-search',
      cacheHit: false,
      tokensUsed: 0,
    });
  });

  it('judges jobs left queued by a stopped worker (durable queue)', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 20; i++) {
      const r = await post('/api/posttool', {
        toolName: 'Bash',
        toolInput: { command: `echo ${i}` },
        outcome: { success: true, error: null, duration_ms: 1 },
      });
      ids.push(r.body.judgeJobId);
    }
    const deadline = Date.now() + 20_000;
    let gates = await get('/api/gates');
    while (gates.body.judge.queueLength > 0 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100));
      gates = await get('/api/gates');
    }
    expect(gates.body.judge.queueLength).toBe(0);
    expect(new Set(ids).size).toBe(20);
  });
});

describe('experience rate limit', () => {
  let sut: ServiceUnderTest;
  beforeAll(async () => {
    sut = await startServiceForTest(identityService, 'ConnectionStrings:LicenseDb', {
      overrides: { 'Experience:RateLimitPerMinute': 5, 'Experience:JudgeEnabled': false },
    });
  }, 120_000);
  afterAll(() => sut?.stop());

  it('answers 429 with Retry-After past the limit (no token configured: no auth)', async () => {
    const statuses: number[] = [];
    let last;
    for (let i = 0; i < 7; i++) {
      last = await call(sut.url, 'GET', '/api/stats');
      statuses.push(last.status);
    }
    expect(statuses.slice(0, 5)).toEqual([200, 200, 200, 200, 200]);
    expect(statuses[6]).toBe(429);
    expect(Number(last!.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(last!.body.code).toBe('RATE_LIMITED');
  });
});
