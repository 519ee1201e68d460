import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

/** The plain call: `{ method: <tool>, args: { … } }`. */
export class PlainToolCallBody {
  @ApiProperty({ description: 'Name of the tool (see the MCP `tools/list`).', example: 'list_rulesets' })
  method!: string;

  @ApiPropertyOptional({ type: 'object', additionalProperties: true, description: "The tool's arguments." })
  args?: Record<string, unknown>;
}

/** The plain call's answer. */
export class PlainToolResultView {
  @ApiProperty({ description: "The tool's result (its shape is the tool's)." })
  result!: unknown;
}

/** A JSON-RPC 2.0 request or notification (MCP Streamable HTTP). */
export class JsonRpcRequestBody {
  @ApiProperty({ enum: ['2.0'] })
  jsonrpc!: '2.0';

  @ApiPropertyOptional({
    oneOf: [{ type: 'string' }, { type: 'integer' }],
    description: 'Absent on notifications.',
  })
  id?: string | number;

  @ApiProperty({ example: 'tools/call' })
  method!: string;

  @ApiPropertyOptional({ type: 'object', additionalProperties: true })
  params?: Record<string, unknown>;
}

export class JsonRpcErrorObject {
  @ApiProperty({ type: 'integer' })
  code!: number;

  @ApiProperty()
  message!: string;

  @ApiPropertyOptional()
  data?: unknown;
}

/** A JSON-RPC 2.0 response: `result` or `error`. */
export class JsonRpcResponseView {
  @ApiProperty({ enum: ['2.0'] })
  jsonrpc!: '2.0';

  @ApiProperty({ oneOf: [{ type: 'string' }, { type: 'integer' }], nullable: true })
  id!: string | number | null;

  @ApiPropertyOptional({ type: 'object', additionalProperties: true })
  result?: Record<string, unknown>;

  @ApiPropertyOptional({ type: JsonRpcErrorObject })
  error?: JsonRpcErrorObject;
}
