import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

/** The plain call: `{ method: <tool>, args: { … } }`. */
export class PlainToolCallBody {
  @ApiProperty({ description: 'Name of the tool (see the MCP `tools/list`).', example: 'list_rulesets' })
  method!: string;

  @ApiPropertyOptional({ type: 'object', additionalProperties: true, description: "The tool's arguments." })
  args?: Record<string, unknown>;
}

/** Any JSON value, `null` included (OpenAPI 3.0 has no type for it: one branch per JSON type). */
const JSON_VALUE_SCHEMA = {
  oneOf: [
    { type: 'string' },
    { type: 'number' },
    { type: 'boolean' },
    { type: 'array', items: {} },
    { type: 'object', additionalProperties: true, nullable: true },
  ],
};

/** The plain call's answer. */
export class PlainToolResultView {
  @ApiProperty({
    description: "The tool's result (its shape is the tool's: an object, a list, …).",
    ...JSON_VALUE_SCHEMA,
  } as never)
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

  @ApiProperty({
    oneOf: [{ type: 'string', nullable: true }, { type: 'integer' }],
    description: "The request's id; null when it could not be read.",
  })
  id!: string | number | null;

  @ApiPropertyOptional({ type: 'object', additionalProperties: true })
  result?: Record<string, unknown>;

  @ApiPropertyOptional({ type: JsonRpcErrorObject })
  error?: JsonRpcErrorObject;
}
