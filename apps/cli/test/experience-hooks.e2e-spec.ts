import { identityService } from '@arbiter/identity';
import { startServiceForTest, ServiceUnderTest } from '@arbiter/testing';
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  runExperienceFeedback,
  runExperienceIntercept,
  runExperiencePostTool,
} from '../src/commands/experience';

const TOKEN = 'hook-token-0123456789abcdef';

describe('arbiter experience hooks', () => {
  let sut: ServiceUnderTest;
  let config: string;
  beforeAll(async () => {
    sut = await startServiceForTest(identityService, 'ConnectionStrings:LicenseDb', {
      overrides: { 'Experience:ServerAuthToken': TOKEN, 'Experience:JudgeIntervalMs': 50 },
    });
    config = join(tmpdir(), `arbiter-exp-config-${process.pid}.json`);
    writeFileSync(config, JSON.stringify({ serverBaseUrl: sut.url, serverAuthToken: TOKEN }));
    const res = await fetch(`${sut.url}/api/extract`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
      body: JSON.stringify({
        transcript: 'Lesson: when npm test cannot find a workspace module, run npm run build first',
        sessionId: 'h0',
        agent: 'claude-code',
        workspace: '/repo',
      }),
    });
    expect(res.status).toBe(200);
  }, 120_000);
  afterAll(() => sut?.stop());

  it('intercept prints the suggestion for a Claude Code hook payload; posttool queues; feedback reads the text', async () => {
    const hook = { tool_name: 'Bash', tool_input: { command: 'npm test' }, session_id: 'h1', cwd: '/repo' };
    const text = await runExperienceIntercept(JSON.stringify(hook), { config });
    expect(text).toMatch(/pointId: [0-9a-f-]{36}, collection: lessons/);
    const job = await runExperiencePostTool(
      JSON.stringify({ ...hook, tool_response: { stdout: 'ok', stderr: '' } }),
      { config },
    );
    expect(job).toMatch(/^[0-9a-f-]{36}$/);
    const fb = await runExperienceFeedback(text, 'followed', { config });
    expect(fb).toEqual({ recorded: 1, failed: [] });
  });

  it('fails open: a wrong token, a dead address and a silent server all print nothing, within the timeout', async () => {
    const hook = JSON.stringify({ tool_name: 'Bash', tool_input: { command: 'npm test' } });
    expect(await runExperienceIntercept(hook, { url: sut.url, token: 'wrong-token-xxxxxxxx' })).toBe('');
    expect(await runExperienceIntercept(hook, { url: 'http://127.0.0.1:9' })).toBe('');
    const silent = createServer(() => undefined); // accepts, never answers
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    const port = (silent.address() as { port: number }).port;
    const started = Date.now();
    expect(await runExperienceIntercept(hook, { url: `http://127.0.0.1:${port}`, timeoutMs: '300' })).toBe(
      '',
    );
    expect(Date.now() - started).toBeLessThan(5000);
    silent.close();
    expect(await runExperienceIntercept('not json', { config })).toBe('');
  });
});
