import { Body, Controller, Delete, Get, HttpCode, Inject, Post, Req, Res } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
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
@Controller()
export class ToolProtocolController {
  constructor(@Inject(ToolProtocolServer) private readonly server: ToolProtocolServer) {}

  @Post('mcp')
  async mcp(@Req() req: ToolRequest, @Res() reply: ToolReply): Promise<void> {
    if (!isJsonRpc(req.body)) {
      reply.status(200).send(await this.server.callPlain(req.body));
      return;
    }
    await this.server.handleMcp(req, reply);
  }

  @Get('mcp')
  @Delete('mcp')
  notAllowed(@Res() reply: ToolReply): void {
    this.server.methodNotAllowed(reply);
  }

  @Post('sse')
  @HttpCode(200)
  sse(@Body() body: unknown) {
    return this.server.callPlain(body);
  }
}
