import { createServer, IncomingMessage, Server } from 'node:http';
import { AddressInfo } from 'node:net';

/** What the stub answers to the next call: a chat completion whose content is given, or a raw HTTP reply. */
export type StubReply =
  { content: unknown } | { raw: string; status?: number; contentType?: string } | { refusal: string };

/**
 * A small OpenAI-compatible chat-completions server for the API tests (test code, not product code):
 * `POST /v1/chat/completions` answers the queued replies in order (then the default reply), and records
 * every request (headers and body) for the test to inspect.
 */
export class OpenAiStub {
  readonly requests: { path: string; headers: IncomingMessage['headers']; body: any }[] = [];
  private readonly queue: StubReply[] = [];
  private server?: Server;

  constructor(private readonly defaultReply: StubReply) {}

  get baseUrl(): string {
    const { port } = this.server!.address() as AddressInfo;
    return `http://127.0.0.1:${port}/v1`;
  }

  /** The replies of the next calls, in order. */
  next(...replies: StubReply[]): void {
    this.queue.push(...replies);
  }

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        let body: any = null;
        try {
          body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        } catch {
          /* recorded as null */
        }
        this.requests.push({ path: req.url ?? '', headers: req.headers, body });
        if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
          res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"message":"not found"}}');
          return;
        }
        const reply = this.queue.shift() ?? this.defaultReply;
        if ('raw' in reply) {
          res
            .writeHead(reply.status ?? 200, { 'content-type': reply.contentType ?? 'application/json' })
            .end(reply.raw);
          return;
        }
        const message =
          'refusal' in reply
            ? { role: 'assistant', content: null, refusal: reply.refusal }
            : {
                role: 'assistant',
                content: typeof reply.content === 'string' ? reply.content : JSON.stringify(reply.content),
              };
        res.writeHead(200, { 'content-type': 'application/json' }).end(
          JSON.stringify({
            id: `chatcmpl-${this.requests.length}`,
            object: 'chat.completion',
            created: Math.floor(Date.now() / 1000),
            model: body?.model ?? 'stub',
            choices: [{ index: 0, message, finish_reason: 'stop' }],
            usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
          }),
        );
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return this;
  }

  stop(): Promise<void> {
    return new Promise((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}
