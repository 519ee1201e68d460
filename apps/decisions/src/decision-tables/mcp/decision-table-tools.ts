import { defineTool, readPage, ToolDefinition } from '@arbiter/platform';
import { z } from 'zod';
import { DecisionTableAuthoringService } from '../application/decision-table-authoring.service';
import { DecisionTableEvaluationService } from '../application/decision-table-evaluation.service';
import { TABLE_PAGE } from '../http/decision-tables.controller';

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

/**
 * The tool-protocol tools of spec 2 (`svc_decision_table_*`). The spec names the tools but not their
 * arguments; ours follow the HTTP routes (`id`, `version`, `fromVersion`/`toVersion`, `input`,
 * `page`/`pageSize`). Each tool calls the same application services as the HTTP routes, so tenant,
 * actor, row-level security, cache and error codes are the same.
 */
export function decisionTableTools(
  tables: DecisionTableAuthoringService,
  evaluation: DecisionTableEvaluationService,
): ToolDefinition[] {
  return [
    defineTool({
      name: 'svc_decision_table_list',
      title: 'List decision tables',
      description: "Lists the caller's tenant's decision tables (summaries, ordered by name).",
      inputSchema: z.strictObject({ page, pageSize }),
      handler: (a) => tables.list(paging(a)),
    }),
    defineTool({
      name: 'svc_decision_table_get',
      title: 'Get a decision table',
      description: 'Gets a decision table (latest version): columns, hit policy, rows.',
      inputSchema: z.strictObject({ id }),
      handler: (a) => tables.get(a.id),
    }),
    defineTool({
      name: 'svc_decision_table_get_version',
      title: 'Get a decision table version',
      description: 'Gets a decision table as it was at one version.',
      inputSchema: z.strictObject({ id, version: version.describe('version number (≥ 1)') }),
      handler: (a) => tables.get(a.id, a.version),
    }),
    defineTool({
      name: 'svc_decision_table_get_versions',
      title: 'List versions of a decision table',
      description:
        'Lists the versions of a decision table, newest first: { version, createdAt, createdBy, comment }.',
      inputSchema: z.strictObject({ id, page, pageSize }),
      handler: (a) => tables.versions(a.id, paging(a)),
    }),
    defineTool({
      name: 'svc_decision_table_diff_versions',
      title: 'Compare two versions',
      description:
        'Compares two versions of a decision table: changed fields, added, removed and modified rows.',
      inputSchema: z.strictObject({
        id,
        fromVersion: version.describe('older version'),
        toVersion: version.describe('newer version'),
      }),
      handler: (a) => tables.diff(a.id, a.fromVersion, a.toVersion),
    }),
    defineTool({
      name: 'svc_decision_table_evaluate',
      title: 'Evaluate a decision table',
      description:
        'Evaluates a decision table against inputs (input column name → value): { matchedRows, outputRows, outputValues, evaluationTimeMs }.',
      inputSchema: z.strictObject({
        id,
        input: z.record(z.string(), z.unknown()).describe('input column name → value'),
        version: version.optional().describe('version to evaluate (default: latest)'),
      }),
      handler: (a) => evaluation.evaluate(a.id, a.input, a.version),
    }),
  ];
}
