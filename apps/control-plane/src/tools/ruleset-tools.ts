import { Policies, PolicyName } from '@arbiter/auth';
import { defineTool, ToolDefinition } from '@arbiter/platform';
import { z } from 'zod';
import { DryRunService } from '../execution';
import { ActivateVersion, RuleSetQueries, SaveRuleSet } from '../rulesets';
import { ToolPolicies } from './tool-policies';

const workflowName = z.string().min(1).max(128).describe('workflow (rule set) name');
const version = z.number().int().min(1).max(999_999_999);
const json = z.record(z.string(), z.unknown());
const detail = z.string().max(2_000).optional().describe('free text recorded in the audit');
const actor = z
  .string()
  .max(256)
  .optional()
  .describe(
    "who acts: with a token the token's user (anyone else: ACTOR_MISMATCH); without, this, then X-Actor, then control-plane",
  );

/**
 * The tools of spec 1 (`svc_ruleset_*`), with the spec's arguments. Each calls the application service
 * of the matching HTTP route under the same policy, so tenant (`x-tenant-id` or the token's claim),
 * actor (the token's user; `args.actor`, `X-Actor` only while authorization is disabled), row-level security, validation and error codes are the routes'.
 */
export function ruleSetTools(
  ruleSets: { queries: RuleSetQueries; saving: SaveRuleSet; activation: ActivateVersion },
  dryRuns: DryRunService,
  policies: ToolPolicies,
): ToolDefinition[] {
  const { queries, saving, activation } = ruleSets;
  const guard = (name: string, policy: PolicyName) => ({ name, authorize: policies.require(policy, name) });
  return [
    defineTool({
      ...guard('svc_ruleset_list', Policies.Viewer),
      title: 'List rule sets',
      description:
        "Lists the caller's tenant's rule sets: { rulesets: [{ workflowName, activeVersion, totalVersions, lastModified, modifiedBy }] }.",
      inputSchema: z.strictObject({}),
      handler: () => queries.list(),
    }),
    defineTool({
      ...guard('svc_ruleset_get_versions', Policies.Viewer),
      title: 'List versions of a rule set',
      description:
        'Lists the versions of a rule set, newest first, with the active version: { workflowName, activeVersion, totalVersions, versions: [{ version, status, createdAt, createdBy, … }] }.',
      inputSchema: z.strictObject({
        workflowName,
        limit: z.number().int().min(1).max(500).optional().describe('page size (default 50, max 500)'),
        offset: z.number().int().min(0).max(999_999_999).optional().describe('versions to skip (default 0)'),
      }),
      handler: (a) => queries.versions(a.workflowName, a.limit ?? 50, a.offset ?? 0),
    }),
    defineTool({
      ...guard('svc_ruleset_export', Policies.Viewer),
      title: 'Export a rule set version',
      description:
        'Exports one version of a rule set (the active one when version is omitted): its document in ruleSet, with version and status.',
      inputSchema: z.strictObject({
        workflowName,
        version: version.optional().describe('default: the active version'),
      }),
      handler: (a) => queries.exportDocument(a.workflowName, a.version),
    }),
    defineTool({
      ...guard('svc_ruleset_save', Policies.Admin),
      title: 'Save a rule set version',
      description:
        'Validates and saves a rule set document as a new immutable Draft version: { workflowName, version, status, createdAt, createdBy, activated }.',
      inputSchema: z.strictObject({
        workflowName,
        ruleSet: json.describe('the rule set document (rules form, ruleSet form or flow graph)'),
        detail,
        actor,
        activateAfterSave: z
          .boolean()
          .optional()
          .describe('activate at once (only when approval is not required; default false)'),
      }),
      handler: (a) =>
        saving.execute(a.workflowName, {
          document: a.ruleSet,
          activateAfterSave: a.activateAfterSave,
          actor: a.actor,
          detail: a.detail ?? null,
          pathPrefix: 'args.ruleSet',
        }),
    }),
    defineTool({
      ...guard('svc_ruleset_activate', Policies.Approver),
      title: 'Activate a rule set version',
      description:
        'Activates a version (archiving the previous active one): { workflowName, version, status, activatedAt, activatedBy, previousActiveVersion }.',
      inputSchema: z.strictObject({
        workflowName,
        version: version.describe('version to activate'),
        detail,
        actor,
      }),
      handler: (a) => activation.execute(a.workflowName, a.version, a.actor, a.detail),
    }),
    defineTool({
      ...guard('svc_ruleset_dry_run', Policies.Viewer),
      title: 'Dry-run a rule set',
      description:
        'Evaluates a stored version (default: active) against inputs with side effects off: { executionId, status, outputs, executionTime, rulesExecuted, sideEffectsApplied: false, errors, rulesMatched, version }.',
      inputSchema: z.strictObject({
        workflowName,
        inputs: json.describe('input facts'),
        version: version.optional().describe('default: the active version'),
      }),
      handler: (a) => dryRuns.ruleEngineDryRun(a.workflowName, { inputs: a.inputs, version: a.version }),
    }),
  ];
}
