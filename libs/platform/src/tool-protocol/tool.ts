/** A failed argument check: where (`path` inside the arguments) and why. */
export interface ToolArgumentIssue {
  path: readonly PropertyKey[];
  message: string;
}

/**
 * The argument schema of a tool, structurally: a zod object schema fits (`z.strictObject({ … })`). The
 * plain call validates with `safeParse`; the MCP server hands the schema to the SDK unchanged, which
 * publishes it as the tool's JSON schema and validates MCP calls itself.
 */
export interface ToolArgumentSchema<Args = unknown> {
  safeParse(
    value: unknown,
  ): { success: true; data: Args } | { success: false; error: { issues: readonly ToolArgumentIssue[] } };
}

/** The validated arguments type of a schema. */
export type ToolArguments<S> = S extends {
  safeParse(value: unknown): infer R;
}
  ? R extends { success: true; data: infer Args }
    ? Args
    : never
  : never;

/** One tool of a tool-protocol server. */
export interface ToolDefinition<S extends ToolArgumentSchema<any> = ToolArgumentSchema<any>> {
  name: string;
  title?: string;
  description: string;
  inputSchema: S;
  /**
   * Runs before the arguments are checked (plain call) or before the handler (MCP): throw an AppError
   * to refuse the caller (e.g. a policy the HTTP route of the same operation requires).
   */
  authorize?: () => void | Promise<void>;
  /** Runs in the caller's request context (tenant, actor, correlation id); its value is the result. */
  handler(args: ToolArguments<S>): unknown;
}

/** Declares a tool with its handler's argument type taken from the schema. */
export function defineTool<S extends ToolArgumentSchema<any>>(tool: ToolDefinition<S>): ToolDefinition {
  return tool as unknown as ToolDefinition;
}
