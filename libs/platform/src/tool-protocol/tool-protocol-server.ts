import { Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { RequestContext, RequestContextData } from '../context/request-context';
import { toProblem } from '../errors/all-exceptions.filter';
import { EnvelopeWriter, traceEnvelope } from '../errors/error-envelope';
import { ToolDefinition } from './tool';
import { ToolErrorOptions, ToolRegistry } from './tool-registry';

/** A tool result in MCP form: the value as JSON text, or the error envelope with `isError`. */
export interface McpToolResult {
  [key: string]: unknown;
  content: { type: 'text'; text: string }[];
  isError?: boolean;
}

/** What the server needs of `McpServer` (`@modelcontextprotocol/sdk/server/mcp.js`). */
export interface McpServerLike {
  registerTool(
    name: string,
    config: { title?: string; description?: string; inputSchema?: any },
    handler: (args: any) => Promise<McpToolResult>,
  ): unknown;
  connect(transport: any): Promise<void>;
  close(): Promise<void>;
}

/** What the server needs of `StreamableHTTPServerTransport` (`…/server/streamableHttp.js`). */
export interface McpTransportLike {
  handleRequest(req: IncomingMessage, res: ServerResponse, parsedBody?: unknown): Promise<void>;
  close(): Promise<void>;
}

/**
 * The MCP SDK classes, passed in by the app (the SDK is the app's dependency, not the platform's):
 * `{ McpServer, StreamableHTTPServerTransport }`.
 */
export interface McpSdk {
  McpServer: new (info: { name: string; version: string }) => McpServerLike;
  StreamableHTTPServerTransport: new (options: {
    sessionIdGenerator: undefined;
    enableJsonResponse: boolean;
  }) => McpTransportLike;
}

export interface ToolProtocolServerOptions {
  /** Server name and version announced to MCP clients. */
  name: string;
  version: string;
  tools: ToolDefinition[];
  sdk: McpSdk;
  /** Codes of the plain call's failures (default 400 `UNKNOWN_TOOL` / 400 `INVALID_TOOL_ARGUMENTS`). */
  errors?: ToolErrorOptions;
  /** Error body inside an MCP tool error (default `{ error, code, traceId }`). */
  envelope?: EnvelopeWriter;
}

/** The parts of a Fastify request and reply the server uses. */
export interface ToolRequest {
  body?: unknown;
  raw: IncomingMessage;
}
export interface ToolReply {
  raw: ServerResponse;
  hijack(): void;
  status(code: number): ToolReply;
  header(name: string, value: string): ToolReply;
  send(body: unknown): void;
}

/** A JSON-RPC message (or batch) goes to the MCP transport; anything else is the plain call. */
export const isJsonRpc = (body: unknown) =>
  Array.isArray(body) || (typeof body === 'object' && body !== null && 'jsonrpc' in body);

const logger = new Logger('ToolProtocol');

/**
 * A tool-protocol server over a set of tools: MCP Streamable HTTP, stateless (a server and transport
 * per request, JSON responses, no session id), and the plain call `{ method, args }` → `{ result }`.
 * Tools run in the caller's request context, so tenant, actor and row-level security are the HTTP
 * routes' own.
 */
export class ToolProtocolServer {
  readonly registry: ToolRegistry;

  constructor(private readonly options: ToolProtocolServerOptions) {
    this.registry = new ToolRegistry(options.tools, options.errors);
  }

  /** `{ method, args }` → `{ result }`; failures are thrown as AppErrors (the service's envelope). */
  callPlain(body: unknown): Promise<{ result: unknown }> {
    return this.registry.callPlain(body);
  }

  /** One MCP request (JSON-RPC over Streamable HTTP); the reply is written by the transport. */
  async handleMcp(req: ToolRequest, reply: ToolReply): Promise<void> {
    const server = this.createMcpServer(RequestContext.current());
    const transport = new this.options.sdk.StreamableHTTPServerTransport({
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
  methodNotAllowed(reply: ToolReply): void {
    reply
      .status(405)
      .header('allow', 'POST')
      .send({
        jsonrpc: '2.0',
        error: { code: -32000, message: 'Method not allowed: this MCP endpoint is stateless, use POST' },
        id: null,
      });
  }

  private createMcpServer(context: RequestContextData | undefined): McpServerLike {
    const server = new this.options.sdk.McpServer({ name: this.options.name, version: this.options.version });
    for (const tool of this.registry.tools) {
      server.registerTool(
        tool.name,
        { title: tool.title, description: tool.description, inputSchema: tool.inputSchema },
        // the SDK runs handlers in the request's async context; re-entering it keeps that explicit
        (args: unknown) =>
          RequestContext.run(context ?? {}, async () => {
            try {
              await tool.authorize?.();
              const result = await tool.handler(args);
              return { content: [{ type: 'text' as const, text: JSON.stringify(result) }] };
            } catch (error) {
              return this.toolError(error);
            }
          }),
      );
    }
    return server;
  }

  /** A tool error carrying the service's error envelope as text, so the stable code is in it. */
  private toolError(error: unknown): McpToolResult {
    const traceId = RequestContext.correlationId() ?? randomUUID();
    const problem = toProblem(error, traceId);
    if (problem.status >= 500)
      logger.error({
        msg: 'Unhandled error in a tool call',
        traceId,
        err: error instanceof Error ? { message: error.message, stack: error.stack } : error,
      });
    const envelope = this.options.envelope ?? traceEnvelope;
    return { isError: true, content: [{ type: 'text', text: JSON.stringify(envelope(problem)) }] };
  }
}
