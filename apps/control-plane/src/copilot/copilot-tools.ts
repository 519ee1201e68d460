import { defineTool, ToolDefinition } from '@arbiter/platform';
import { z } from 'zod';
import { DraftRuleSet } from './application/draft-ruleset';
import { DRAFT_SHAPES } from './domain/shape-schemas';

/**
 * `svc_ruleset_draft`, the drafting route as a tool-protocol tool (the same use case, validation, error
 * codes and policy: Admin). The tool server passes its `authorize` step for the policy.
 */
export function copilotTools(drafting: DraftRuleSet, authorize: () => Promise<void>): ToolDefinition[] {
  return [
    defineTool({
      name: 'svc_ruleset_draft',
      authorize,
      title: 'Draft a rule set with the copilot',
      description:
        'Asks the configured model for a rule set from a description, validates it, dry-runs it against the examples and saves it as a Draft version with its provenance: { workflowName, version, status: "Draft", shape, ruleSet, examples, provenance }. COPILOT_NOT_CONFIGURED when no model is configured.',
      inputSchema: z.strictObject({
        workflowName: z.string().min(1).max(128).describe('workflow (rule set) name'),
        description: z.string().min(1).max(8_000).describe('what the rules must do, in natural language'),
        shape: z.enum(DRAFT_SHAPES).optional().describe("rule set shape (default 'rules')"),
        examples: z
          .array(
            z.strictObject({
              facts: z.record(z.string(), z.unknown()).describe('input facts'),
              expected: z.record(z.string(), z.unknown()).describe('outputs the draft must produce'),
            }),
          )
          .max(50)
          .optional(),
        detail: z.string().max(2_000).optional().describe('free text recorded with the version'),
      }),
      handler: (a) =>
        drafting.execute(a.workflowName, {
          description: a.description,
          shape: a.shape,
          examples: a.examples,
          detail: a.detail,
        }),
    }),
  ];
}
