import { Body, Controller, Delete, Get, HttpCode, Inject, Post, Req, Res } from '@nestjs/common';
import {
  ApiBody,
  ApiExtraModels,
  ApiOkResponse,
  ApiOperation,
  ApiResponse,
  ApiTags,
  getSchemaPath,
} from '@nestjs/swagger';
import { ApiErrors, ERROR_FAMILY_REF } from '../openapi/api-decorators';
import {
  JsonRpcRequestBody,
  JsonRpcResponseView,
  PlainToolCallBody,
  PlainToolResultView,
} from './tool-protocol.dto';
import { isJsonRpc, ToolProtocolServer, ToolReply, ToolRequest } from './tool-protocol-server';

/**
 * The tool-protocol routes of a service, behind the same authentication, tenant resolution and error
 * envelope as its HTTP routes (the global guard runs first). Register it in a module that provides a
 * `ToolProtocolServer`:
 *
 * - `POST /mcp`: MCP Streamable HTTP (stateless); a body without `jsonrpc` is the plain call;
 * - `POST /sse`: the plain call `{ method: <tool>, args: { … } }` → `200 { result }`;
 * - `GET` / `DELETE /mcp`: 405 (no sessions, no standalone stream).
 */
@ApiTags('tool protocol (MCP)')
@ApiExtraModels(JsonRpcRequestBody, JsonRpcResponseView, PlainToolCallBody, PlainToolResultView)
@Controller()
export class ToolProtocolController {
  constructor(@Inject(ToolProtocolServer) private readonly server: ToolProtocolServer) {}

  @Post('mcp')
  @ApiOperation({
    summary: 'MCP Streamable HTTP (stateless), or the plain call',
    description:
      'A JSON-RPC message or batch is handled by the MCP transport (`initialize`, `tools/list`, `tools/call`; ' +
      'the Accept header must list `application/json` and `text/event-stream`); any other body is the plain ' +
      'call `{ method, args }` answered with `{ result }`.',
  })
  // anyOf, not oneOf: a JSON-RPC message also fits the plain call's shape; `jsonrpc` (or an array) tells them apart
  @ApiBody({
    schema: {
      anyOf: [
        { $ref: getSchemaPath(JsonRpcRequestBody) },
        { type: 'array', items: { $ref: getSchemaPath(JsonRpcRequestBody) } },
        { $ref: getSchemaPath(PlainToolCallBody) },
      ],
    },
  })
  @ApiOkResponse({
    description: "The JSON-RPC response (or batch), or the plain call's `{ result }`",
    schema: {
      anyOf: [
        { $ref: getSchemaPath(JsonRpcResponseView) },
        { type: 'array', items: { $ref: getSchemaPath(JsonRpcResponseView) } },
        { $ref: getSchemaPath(PlainToolResultView) },
      ],
    },
  })
  @ApiResponse({ status: 202, description: 'A notification or response was accepted (no body)' })
  @ApiResponse({
    status: 406,
    description: 'The Accept header does not list application/json and text/event-stream',
    type: JsonRpcResponseView,
  })
  @ApiResponse({
    status: 400,
    description: 'A malformed JSON-RPC message (JSON-RPC error), or a bad plain call (error body)',
    schema: { oneOf: [{ $ref: getSchemaPath(JsonRpcResponseView) }, { $ref: ERROR_FAMILY_REF }] },
  })
  @ApiErrors(404, 409, 422)
  async mcp(@Req() req: ToolRequest, @Res() reply: ToolReply): Promise<void> {
    if (!isJsonRpc(req.body)) {
      reply.status(200).send(await this.server.callPlain(req.body));
      return;
    }
    await this.server.handleMcp(req, reply);
  }

  @Get('mcp')
  @ApiOperation({ summary: 'Not allowed: the endpoint is stateless (no standalone stream)' })
  @ApiResponse({
    status: 405,
    description: 'Use POST (JSON-RPC error, `Allow: POST`)',
    type: JsonRpcResponseView,
  })
  mcpStream(@Res() reply: ToolReply): void {
    this.server.methodNotAllowed(reply);
  }

  @Delete('mcp')
  @ApiOperation({ summary: 'Not allowed: the endpoint is stateless (no session to end)' })
  @ApiResponse({
    status: 405,
    description: 'Use POST (JSON-RPC error, `Allow: POST`)',
    type: JsonRpcResponseView,
  })
  mcpSession(@Res() reply: ToolReply): void {
    this.server.methodNotAllowed(reply);
  }

  @Post('sse')
  @HttpCode(200)
  @ApiOperation({ summary: 'The plain tool call: `{ method, args }` → `{ result }`' })
  @ApiBody({ type: PlainToolCallBody })
  @ApiOkResponse({ type: PlainToolResultView })
  @ApiErrors(404, 409, 422)
  sse(@Body() body: unknown) {
    return this.server.callPlain(body);
  }
}
