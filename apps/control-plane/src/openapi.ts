import { AuthErrorCodes } from '@arbiter/auth';
import { defineErrorFamily, ToolErrorCodes } from '@arbiter/platform';
import { CanaryErrors } from './canary';
import { CatalogErrors } from './catalog';
import { ExecutionErrorCodes } from './execution';
import { ExecutionAuditErrors } from './execution-audit';
import { QuotaErrors } from './quotas';
import { RuleSetErrors } from './rulesets';
import { RequestParamErrors } from './shared';

/**
 * Every code the control plane answers with, in its `{ error, code, traceId }` body: the family of the
 * routes that name no narrower one (the tool protocol's tools reach every feature).
 */
export const ControlPlaneErrorFamily = defineErrorFamily({
  name: 'ControlPlaneError',
  envelope: 'trace',
  description: 'A control-plane failure: `{ error, code, traceId }` (`details` on validation failures).',
  codes: [
    AuthErrorCodes,
    ToolErrorCodes,
    RequestParamErrors,
    RuleSetErrors,
    CatalogErrors,
    CanaryErrors,
    QuotaErrors,
    ExecutionErrorCodes,
    ExecutionAuditErrors,
  ],
});

/** Descriptions of the tags of the runtime features' operations. */
export const RuntimeApiTags = [
  {
    name: 'execution',
    description:
      'Run a workflow (`POST /api/v1/rule-engine/execute/{workflowName}`), dry-run it without side effects, ' +
      "and this node's execution metrics.",
  },
  {
    name: 'execution audit',
    description:
      'Executions recorded per workflow (with Shadow mode differences) and the audit sink metrics.',
  },
  {
    name: 'canary',
    description:
      'Canary rollouts of a version to named tenants or a share of traffic: start, promote, roll back, state ' +
      'and metrics, under the /api/v1/canary, /api/v1/rule-engine and /api/v1/control-plane route families.',
  },
  { name: 'quotas', description: "A tenant's quota limits (tier preset and overrides) and usage." },
  { name: 'rule catalog', description: 'Rules the rule library manifests define, grouped by category.' },
  {
    name: 'contracts',
    description: 'Contract metadata (request scope, response delta) of rules, decision tables and flows.',
  },
  {
    name: 'ui catalog',
    description: 'The API catalog, endpoint-to-rule bindings, the binding graph and captured snapshots.',
  },
  {
    name: 'push hub',
    description: 'SignalR negotiation of the push hub (rule set changes and canary state changes).',
  },
  {
    name: 'tool protocol (MCP)',
    description: 'The rule set tools over MCP Streamable HTTP (`/mcp`) and the plain call (`/sse`).',
  },
];
