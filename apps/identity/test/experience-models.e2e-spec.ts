import { startServiceForTest, ServiceUnderTest } from '@arbiter/testing';
import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { identityService } from '../src';
import { call } from './helpers';

/** A stub OpenAI-compatible server: /v1/embeddings (8 dimensions) and /v1/chat/completions, counting calls. */
function startStub(): Promise<{ server: Server; url: string; calls: Record<string, number> }> {
  const calls: Record<string, number> = { embeddings: 0, chat: 0 };
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const json = JSON.parse(body || '{}');
      res.setHeader('content-type', 'application/json');
      if (req.url === '/v1/embeddings') {
        calls.embeddings++;
        const data = (json.input as string[]).map((text, index) => {
          const v = new Array(8)
            .fill(0)
            .map((_, i) => ((text.charCodeAt(i % text.length) || 1) % 7) + (i === 0 ? 1 : 0));
          return { index, embedding: v };
        });
        res.end(JSON.stringify({ data, model: json.model }));
        return;
      }
      if (req.url === '/v1/chat/completions') {
        calls.chat++;
        const system = String(json.messages?.[0]?.content ?? '');
        const content = system.includes('Extract reusable lessons')
          ? JSON.stringify({
              lessons: [
                {
                  pattern: 'docker build without cache',
                  text: 'Run docker build with --pull to refresh the base image',
                  confidence: 0.7,
                  toolName: 'Bash',
                },
              ],
            })
          : `stub answer to: ${json.messages?.at(-1)?.content}`;
        res.end(
          JSON.stringify({
            model: json.model,
            choices: [{ message: { role: 'assistant', content } }],
            usage: { total_tokens: 42 },
          }),
        );
        return;
      }
      res.statusCode = 404;
      res.end('{}');
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, calls }),
    ),
  );
}

describe('experience with an OpenAI-compatible endpoint', () => {
  let sut: ServiceUnderTest;
  let stub: Awaited<ReturnType<typeof startStub>>;
  beforeAll(async () => {
    stub = await startStub();
    sut = await startServiceForTest(identityService, 'ConnectionStrings:LicenseDb', {
      overrides: {
        'Experience:EmbeddingProvider': 'openai',
        'Experience:EmbeddingBaseUrl': stub.url,
        'Experience:EmbeddingModel': 'stub-embed',
        'Experience:ChatBaseUrl': stub.url,
        'Experience:ChatModel': 'stub-chat',
        'Experience:JudgeEnabled': false,
      },
    });
  }, 120_000);
  afterAll(async () => {
    await sut?.stop();
    stub?.server.close();
  });

  it('brain proxies to the chat endpoint and answers a repeated request from its cache', async () => {
    const body = { messages: [{ role: 'user', content: 'hello' }], maxTokens: 50 };
    const first = await call(sut.url, 'POST', '/api/brain', { body });
    expect(first.status).toBe(200);
    expect(first.body).toEqual({
      content: 'stub answer to: hello',
      model: 'stub-chat',
      tokensUsed: 42,
      cacheHit: false,
    });
    const second = await call(sut.url, 'POST', '/api/brain', { body });
    expect(second.body.cacheHit).toBe(true);
    expect(stub.calls.chat).toBe(1);
  });

  it('extracts with the model and records the provider dimension per collection', async () => {
    const res = await call(sut.url, 'POST', '/api/extract', {
      body: { transcript: 'the build used a stale image', sessionId: 'm1', agent: 'codex', workspace: 'w' },
    });
    expect(res.status).toBe(200);
    expect(res.body.extractor).toBe('model');
    expect(res.body.lessons[0]).toMatchObject({
      tier: 'T3',
      text: 'Run docker build with --pull to refresh the base image',
    });
    expect(stub.calls.embeddings).toBeGreaterThan(0);
    const gates = await call(sut.url, 'GET', '/api/gates');
    expect(gates.body.vectordb.dimensions.lessons).toBe(8);
  });

  it('routes with the model only when the keyword layer is unsure', async () => {
    const before = stub.calls.chat;
    const sure = await call(sut.url, 'POST', '/api/route-model', {
      body: { task: 'design the database migration architecture' },
    });
    expect(sure.body.source).toBe('keyword');
    expect(stub.calls.chat).toBe(before);
  });
});
