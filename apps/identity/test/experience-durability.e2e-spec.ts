import { startService } from '@arbiter/platform';
import { createTestDatabase, testCacheConnectionString } from '@arbiter/testing';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { identityService } from '../src';
import { call } from './helpers';

/** The database a restart must find again: a PGlite folder, or a fresh PostgreSQL database. */
async function persistentDatabase() {
  if (process.env.TEST_DATABASE_URL) return createTestDatabase();
  const dir = mkdtempSync(join(tmpdir(), 'arbiter-exp-durable-'));
  return { url: `pglite://${dir}`, drop: async () => rmSync(dir, { recursive: true, force: true }) };
}

const start = (url: string, overrides: Record<string, unknown>) =>
  startService(identityService, {
    environment: 'Testing',
    env: {},
    port: 0,
    host: '127.0.0.1',
    overrides: {
      'ConnectionStrings:LicenseDb': url,
      'ConnectionStrings:Cache': testCacheConnectionString(),
      ...overrides,
    },
  });

describe('experience judge queue across a restart', () => {
  it('keeps every accepted posttool job and judges them all after the restart', async () => {
    const db = await persistentDatabase();
    try {
      const first = await start(db.url, { 'Experience:JudgeEnabled': false });
      const accepted: string[] = [];
      try {
        for (let i = 0; i < 40; i++) {
          const res = await call(first.url, 'POST', '/api/posttool', {
            body: {
              toolName: 'Bash',
              toolInput: { command: `make step-${i}` },
              outcome: { success: i % 2 === 0, error: i % 2 ? 'exit code 2' : null, duration_ms: 5 },
            },
          });
          expect(res.status).toBe(202);
          accepted.push(res.body.judgeJobId);
        }
        const gates = await call(first.url, 'GET', '/api/gates');
        expect(gates.body.judge.queueLength).toBe(40);
      } finally {
        await first.close();
      }
      const second = await start(db.url, {
        'Experience:JudgeEnabled': true,
        'Experience:JudgeIntervalMs': 50,
      });
      try {
        const deadline = Date.now() + 30_000;
        let gates = await call(second.url, 'GET', '/api/gates');
        while (gates.body.judge.queueLength > 0 && Date.now() < deadline) {
          await new Promise((r) => setTimeout(r, 100));
          gates = await call(second.url, 'GET', '/api/gates');
        }
        expect(gates.body.judge.queueLength).toBe(0);
        expect(gates.body.judge.processingRate).toBe(40);
        expect(new Set(accepted).size).toBe(40);
      } finally {
        await second.close();
      }
    } finally {
      await db.drop();
    }
  }, 120_000);
});

describe('experience health when a store is down', () => {
  it('answers 503 degraded with the store unreachable', async () => {
    const db = await createTestDatabase();
    const blocker = join(mkdtempSync(join(tmpdir(), 'arbiter-exp-blocked-')), 'not-a-dir');
    writeFileSync(blocker, 'a file where the store wants a directory');
    const service = await start(db.url, { 'Experience:FileStoreDir': join(blocker, 'store') });
    try {
      const health = await call(service.url, 'GET', '/health');
      expect(health.status).toBe(503);
      expect(health.body).toMatchObject({
        status: 'degraded',
        vectordb: { status: 'ok' },
        fileStore: { status: 'unreachable' },
      });
      const gates = await call(service.url, 'GET', '/api/gates');
      expect(gates.body).toMatchObject({ ready: false, fileStore: { available: false, healthy: false } });
      const extract = await call(service.url, 'POST', '/api/extract', {
        body: { transcript: 'Lesson: keep it', sessionId: 'x', agent: 'a', workspace: 'w' },
      });
      expect(extract.status).toBe(503);
      expect(extract.body.code).toBe('FILESTORE_UNREACHABLE');
    } finally {
      await service.close();
      await db.drop();
    }
  }, 120_000);
});

describe('experience ranking with paraphrases', () => {
  it('never shows two near-duplicates in a top-5 answer and suggests nothing for an unrelated call', async () => {
    const db = await createTestDatabase();
    const service = await start(db.url, { 'Experience:MaxSuggestions': 5 });
    const post = (path: string, body: unknown) => call(service.url, 'POST', path, { body });
    try {
      const paraphrases = [
        'Lesson: when jest cannot find a workspace package, build the libraries first with npm run build',
        'Lesson: when jest cannot find a workspace package, build the libraries first using npm run build',
        'Lesson: when jest can not find the workspace package, build the libraries first with npm run build',
        'Lesson: when jest cannot find workspace packages, run npm run build to build the libraries first',
        'Lesson: before npm test in a fresh clone run npm ci then npm run build',
      ];
      for (const [i, t] of paraphrases.entries()) {
        await post('/api/extract', { transcript: t, sessionId: `pp${i}`, agent: 'a', workspace: 'w' });
      }
      const res = await post('/api/intercept', {
        toolName: 'Bash',
        toolInput: { command: 'npx jest libs/platform' },
        context: { task: 'jest cannot find workspace package' },
      });
      expect(res.body.hasSuggestions).toBe(true);
      const lines: string[] = res.body.suggestions.split('\n').slice(1);
      const texts = lines.map((l) => l.replace(/^- \[T\d [\d.]+\] /, '').replace(/ \(pointId.*$/, ''));
      // the near-identical wordings collapse into one suggestion
      const jestLines = texts.filter((t) => /jest can(no|'?)t find/.test(t) || /jest can not find/.test(t));
      expect(jestLines.length).toBe(1);
      const unrelated = await post('/api/intercept', {
        toolName: 'Read',
        toolInput: { file_path: 'docs/logo.svg' },
      });
      expect(unrelated.body).toEqual({ suggestions: null, hasSuggestions: false });
    } finally {
      await service.close();
      await db.drop();
    }
  }, 120_000);
});

// Two replicas need one database server (an embedded PGlite belongs to one process): PostgreSQL runs only.
const withServer = process.env.TEST_DATABASE_URL ? describe : describe.skip;

withServer('experience replicas on one database', () => {
  it("a replica's in-memory index picks up the other's lessons, and their archiving, within seconds", async () => {
    const db = await createTestDatabase();
    const dir = mkdtempSync(join(tmpdir(), 'arbiter-exp-replicas-'));
    const settings = { 'Experience:JudgeEnabled': false, 'Experience:FileStoreDir': dir };
    const a = await start(db.url, settings);
    const b = await start(db.url, settings);
    const intercept = () =>
      call(b.url, 'POST', '/api/intercept', {
        body: { toolName: 'Bash', toolInput: { command: 'terraform apply -auto-approve prod' } },
      });
    const until = async (check: (body: any) => boolean) => {
      const deadline = Date.now() + 15_000;
      let res = await intercept();
      while (!check(res.body) && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 200));
        res = await intercept();
      }
      return res.body;
    };
    try {
      expect((await intercept()).body.hasSuggestions).toBe(false); // b's index is loaded, and empty
      const extracted = await call(a.url, 'POST', '/api/extract', {
        body: {
          transcript:
            'Lesson: before terraform apply -auto-approve on prod, run terraform plan and review the destroy count',
          sessionId: 'r1',
          agent: 'claude-code',
          workspace: 'infra',
        },
      });
      expect(extracted.status).toBe(200);
      const id: string = extracted.body.lessons[0].id;
      const seen = await until((body) => body.hasSuggestions);
      expect(seen.suggestions).toContain(`pointId: ${id}`);
      // three ignores and an evolve on a: the lesson is archived, and b stops suggesting it
      for (let i = 0; i < 3; i++) {
        const fb = await call(a.url, 'POST', '/api/feedback', {
          body: { pointId: id, collection: 'lessons', verdict: 'ignored' },
        });
        expect(fb.status).toBe(200);
      }
      expect((await call(a.url, 'POST', '/api/evolve', { body: {} })).status).toBe(200);
      const gone = await until((body) => !body.hasSuggestions);
      expect(gone.hasSuggestions).toBe(false);
    } finally {
      await a.close();
      await b.close();
      rmSync(dir, { recursive: true, force: true });
      await db.drop();
    }
  }, 120_000);
});
