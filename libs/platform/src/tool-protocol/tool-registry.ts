import { AppError } from '../errors/app-error';
import { ToolDefinition } from './tool';

/** How the plain call reports an unknown tool or bad arguments (a service may keep its own codes). */
export interface ToolErrorOptions {
  /** HTTP status for a `method` naming no tool (default 400). */
  unknownToolStatus?: number;
  /** Code for arguments that fail the tool's schema (default `INVALID_TOOL_ARGUMENTS`). */
  invalidArgumentsCode?: string;
}

export const ToolErrorCodes = {
  UnknownTool: 'UNKNOWN_TOOL',
  InvalidArguments: 'INVALID_TOOL_ARGUMENTS',
} as const;

/** A plain tool call: `{ method: <tool>, args: { … } }`. */
export interface PlainToolCall {
  method?: unknown;
  args?: unknown;
}

/** The tools of one service, and the plain call `{ method, args }` → `{ result }` over them. */
export class ToolRegistry {
  private readonly byName: Map<string, ToolDefinition>;

  constructor(
    readonly tools: readonly ToolDefinition[],
    private readonly errors: ToolErrorOptions = {},
  ) {
    this.byName = new Map(tools.map((t) => [t.name, t]));
    if (this.byName.size !== tools.length) throw new Error('Tool names must be unique');
  }

  get(name: string): ToolDefinition | undefined {
    return this.byName.get(name);
  }

  /** Calls a tool the plain way; failures are AppErrors (the service's error envelope). */
  async callPlain(body: unknown): Promise<{ result: unknown }> {
    const call = (typeof body === 'object' && body !== null ? body : {}) as PlainToolCall;
    if (typeof call.method !== 'string' || !call.method)
      throw AppError.validation(
        [{ field: 'method', message: 'method must name a tool' }],
        'The body must be { method: <tool>, args: { … } } or a JSON-RPC message',
      );
    const tool = this.byName.get(call.method);
    if (!tool)
      throw new AppError(
        this.errors.unknownToolStatus ?? 400,
        ToolErrorCodes.UnknownTool,
        `Unknown tool '${call.method}'; tools: ${this.tools.map((t) => t.name).join(', ')}`,
        [{ field: 'method', message: 'names no tool' }],
      );
    await tool.authorize?.();
    return { result: await tool.handler(this.parseArgs(tool, call.args)) };
  }

  /** Arguments checked against the tool's schema; a mismatch is a 400 naming the fields (`args.<path>`). */
  parseArgs(tool: ToolDefinition, args: unknown): any {
    const parsed = tool.inputSchema.safeParse(args ?? {});
    if (parsed.success) return parsed.data;
    throw new AppError(
      400,
      this.errors.invalidArgumentsCode ?? ToolErrorCodes.InvalidArguments,
      `Invalid arguments for tool ${tool.name}`,
      parsed.error.issues.map((issue) => ({
        field: ['args', ...issue.path.map(String)].join('.'),
        message: issue.message,
      })),
    );
  }
}
