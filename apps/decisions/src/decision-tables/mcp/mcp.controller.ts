import { AppError, RequestContext, RequestContextData, toProblem, traceEnvelope } from '@arbiter/platform';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { Controller, Delete, Get, Inject, Logger, Post, Req, Res } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { ApiTags } from '@nestjs/swagger';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { BUILD_VERSION } from '../../version';
import { DecisionTablesService } from '../application/decision-tables.service';
import { DECISION_TABLE_TOOLS, parseToolArgs, TOOLS_BY_NAME } from './decision-table-tools';

interface RequestLike {
  body?: unknown;
  raw: IncomingMessage;
}
interface ReplyLike {
  raw: ServerResponse;
  hijack(): void;
  status(code: number): ReplyLike;
  header(name: string, value: string): ReplyLike;
  send(body: unknown): void;
}

/** A JSON-RPC message (or batch): served by the MCP transport; anything else is the spec's plain call. */
const isJsonRpc = (body: unknown) =>
  Array.isArray(body) || (typeof body === 'object' && body !== null && 'jsonrpc' in body);

/**
 * Tool-protocol server of spec 2 (the `svc_decision_table_*` tools), behind the same authentication,
 * tenant resolution and error codes as the HTTP routes (the global auth guard runs first).
 *
 * - `POST /mcp`: MCP Streamable HTTP, stateless (a server and transport per request, JSON responses,
 *   no session id), for MCP clients.
 * - `POST /sse` and `POST /mcp` without a `jsonrpc` field: the spec's plain call
 *   `{ method: <tool>, args: { … } }` → `200 { result }`, or the service's error envelope
 *   `{ error, code, traceId }` with the HTTP status the same failure has on the REST route.
 */
@ApiTags('tool protocol (MCP)')
@Controller()
export class McpController {
  constructor(@Inject(DecisionTablesService) private readonly tables: DecisionTablesService) {}

  @Post('mcp')
  async mcp(@Req() req: RequestLike, @Res() reply: ReplyLike): Promise<void> {
    if (!isJsonRpc(req.body)) return this.plain(req.body, reply);
    const server = this.createServer(RequestContext.current());
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    reply.hijack();
    reply.raw.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req.raw, reply.raw, req.body);
  }

  /** Stateless server: no standalone SSE stream (GET) and no session to end (DELETE). */
  @Get('mcp')
  @Delete('mcp')
  notAllowed(@Res() reply: ReplyLike): void {
    reply
      .status(405)
      .header('allow', 'POST')
      .send({
        jsonrpc: '2.0',
        error: { code: -32000, message: 'Method not allowed: this MCP endpoint is stateless, use POST' },
        id: null,
      });
  }

  @Post('sse')
  async sse(@Req() req: RequestLike, @Res() reply: ReplyLike): Promise<void> {
    return this.plain(req.body, reply);
  }

  /** `{ method, args }` → `{ result }`; failures are thrown to the exception filter (error envelope). */
  private async plain(body: unknown, reply: ReplyLike): Promise<void> {
    const call = (typeof body === 'object' && body !== null ? body : {}) as {
      method?: unknown;
      args?: unknown;
    };
    if (typeof call.method !== 'string' || !call.method)
      throw AppError.validation(
        [{ field: 'method', message: 'method must name a tool' }],
        'The body must be { method: <tool>, args: { … } } or a JSON-RPC message',
      );
    const tool = TOOLS_BY_NAME.get(call.method);
    if (!tool)
      throw AppError.notFound(
        'UNKNOWN_TOOL',
        `Unknown tool '${call.method}'; tools: ${DECISION_TABLE_TOOLS.map((t) => t.name).join(', ')}`,
      );
    const result = await tool.call(this.tables, parseToolArgs(tool, call.args));
    reply.status(200).send({ result });
  }

  private createServer(context: RequestContextData | undefined): McpServer {
    const server = new McpServer({ name: 'arbiter-decisions', version: BUILD_VERSION });
    for (const tool of DECISION_TABLE_TOOLS) {
      server.registerTool(
        tool.name,
        { title: tool.title, description: tool.description, inputSchema: tool.schema },
        // the SDK runs handlers in the request's async context; re-entering it keeps that explicit
        async (args: unknown) =>
          RequestContext.run(context ?? {}, async () => {
            try {
              const result = await tool.call(this.tables, args);
              return { content: [{ type: 'text' as const, text: JSON.stringify(result) }] };
            } catch (error) {
              return toolError(error);
            }
          }),
      );
    }
    return server;
  }
}

const logger = new Logger('Mcp');

/** A tool error carrying the service's error envelope as text, so the stable code is in it. */
function toolError(error: unknown) {
  const traceId = RequestContext.correlationId() ?? randomUUID();
  const problem = toProblem(error, traceId);
  if (problem.status >= 500)
    logger.error({
      msg: 'Unhandled error in a tool call',
      traceId,
      err: error instanceof Error ? { message: error.message, stack: error.stack } : error,
    });
  return {
    isError: true,
    content: [{ type: 'text' as const, text: JSON.stringify(traceEnvelope(problem)) }],
  };
}
