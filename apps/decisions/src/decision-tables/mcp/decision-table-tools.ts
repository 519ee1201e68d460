import { AppError, readPage } from '@arbiter/platform';
import { z } from 'zod';
import { DecisionTablesService } from '../application/decision-tables.service';
import { TABLE_PAGE } from '../http/decision-tables.controller';

/**
 * The tool-protocol tools of spec 2 (`svc_decision_table_*`). The spec names the tools but not their
 * arguments; ours follow the HTTP routes (`id`, `version`, `fromVersion`/`toVersion`, `input`,
 * `page`/`pageSize`). Each tool calls the same application service as the HTTP routes, so tenant,
 * actor, row-level security, cache and error codes are the same.
 */
export interface DecisionTableTool {
  name: string;
  title: string;
  description: string;
  schema: z.ZodObject;
  call(service: DecisionTablesService, args: any): Promise<unknown>;
}

const id = z.string().min(1).max(128).describe('decision table id (UUID)');
const version = z.number().int().min(1).max(999_999_999);
const page = z.number().int().min(1).max(999_999_999).optional().describe('1-based page (default 1)');
const pageSize = z
  .number()
  .int()
  .min(1)
  .max(TABLE_PAGE.maxSize)
  .optional()
  .describe(`page size (default ${TABLE_PAGE.defaultSize}, max ${TABLE_PAGE.maxSize})`);

const paging = (args: { page?: number; pageSize?: number }) =>
  readPage({ page: args.page, pageSize: args.pageSize }, TABLE_PAGE);

export const DECISION_TABLE_TOOLS: DecisionTableTool[] = [
  {
    name: 'svc_decision_table_list',
    title: 'List decision tables',
    description: "Lists the caller's tenant's decision tables (summaries, ordered by name).",
    schema: z.strictObject({ page, pageSize }),
    call: (s, a) => s.list(paging(a)),
  },
  {
    name: 'svc_decision_table_get',
    title: 'Get a decision table',
    description: 'Gets a decision table (latest version): columns, hit policy, rows.',
    schema: z.strictObject({ id }),
    call: (s, a) => s.get(a.id),
  },
  {
    name: 'svc_decision_table_get_version',
    title: 'Get a decision table version',
    description: 'Gets a decision table as it was at one version.',
    schema: z.strictObject({ id, version: version.describe('version number (≥ 1)') }),
    call: (s, a) => s.get(a.id, a.version),
  },
  {
    name: 'svc_decision_table_get_versions',
    title: 'List versions of a decision table',
    description:
      'Lists the versions of a decision table, newest first: { version, createdAt, createdBy, comment }.',
    schema: z.strictObject({ id, page, pageSize }),
    call: (s, a) => s.versions(a.id, paging(a)),
  },
  {
    name: 'svc_decision_table_diff_versions',
    title: 'Compare two versions',
    description:
      'Compares two versions of a decision table: changed fields, added, removed and modified rows.',
    schema: z.strictObject({
      id,
      fromVersion: version.describe('older version'),
      toVersion: version.describe('newer version'),
    }),
    call: (s, a) => s.diff(a.id, a.fromVersion, a.toVersion),
  },
  {
    name: 'svc_decision_table_evaluate',
    title: 'Evaluate a decision table',
    description:
      'Evaluates a decision table against inputs (input column name → value): { matchedRows, outputRows, outputValues, evaluationTimeMs }.',
    schema: z.strictObject({
      id,
      input: z.record(z.string(), z.unknown()).describe('input column name → value'),
      version: version.optional().describe('version to evaluate (default: latest)'),
    }),
    call: async (s, a) => s.evaluate(a.id, a.input, a.version),
  },
];

export const TOOLS_BY_NAME = new Map(DECISION_TABLE_TOOLS.map((t) => [t.name, t]));

/** Arguments checked against a tool's schema; a mismatch is a 400 VALIDATION_FAILED naming the fields. */
export function parseToolArgs(tool: DecisionTableTool, args: unknown): unknown {
  const parsed = tool.schema.safeParse(args ?? {});
  if (parsed.success) return parsed.data;
  throw AppError.validation(
    parsed.error.issues.map((issue) => ({
      field: ['args', ...issue.path.map(String)].join('.'),
      message: issue.message,
    })),
    `Invalid arguments for tool ${tool.name}`,
  );
}
