import {
  FLOW_EDGE_KINDS,
  FLOW_NODE_KINDS,
  RULE_SET_SHAPES,
  RuleSetDiff,
  RuleSetShape,
} from '@arbiter/rule-engine';
import { ApiProperty } from '@nestjs/swagger';
import { AUDIT_ACTIONS } from '../../audit';
import { ActivationResult } from '../application/activate-version';
import { SaveResult } from '../application/save-ruleset';
import {
  LifecycleAction,
  RULE_SET_STATUSES,
  RuleSetStatus,
  VERSION_LIFECYCLE,
} from '../domain/version-lifecycle';
import {
  ACTIVATED_AT_EXAMPLE,
  ACTOR_EXAMPLE,
  APPROVED_AT_EXAMPLE,
  CHECKER_EXAMPLE,
  CREATED_AT_EXAMPLE,
  RULE_SET_DOCUMENT_DESCRIPTION,
  RULES_FORM_EXAMPLE,
  SUBMITTED_AT_EXAMPLE,
  WORKFLOW_EXAMPLE,
} from './examples';

/** A nullable enum lists null among its values (OpenAPI 3.0.3: `nullable` does not extend `enum`). */
const NULLABLE_SHAPES = [...RULE_SET_SHAPES, null];

/** `{ rulesets: [...] }` item. */
export class RuleSetListItemView {
  @ApiProperty({ example: WORKFLOW_EXAMPLE })
  workflowName!: string;

  @ApiProperty({
    type: 'integer',
    nullable: true,
    description: 'Null until a version is activated.',
    example: 2,
  })
  activeVersion!: number | null;

  @ApiProperty({ type: 'integer', description: 'The latest version number.', example: 3 })
  totalVersions!: number;

  @ApiProperty({ type: 'string', format: 'date-time', example: ACTIVATED_AT_EXAMPLE })
  lastModified!: string;

  @ApiProperty({ example: CHECKER_EXAMPLE })
  modifiedBy!: string;

  @ApiProperty({
    type: 'integer',
    description: 'Change revision: raised by every save, lifecycle change and invalidation.',
    example: 7,
  })
  revision!: number;
}

/** `GET /rulesets`: the tenant's rule sets. */
export class RuleSetListView {
  @ApiProperty({ type: RuleSetListItemView, isArray: true })
  rulesets!: RuleSetListItemView[];
}

/** A version as the API lists it: every lifecycle field, no document. */
export class VersionSummaryView {
  @ApiProperty({ example: WORKFLOW_EXAMPLE })
  workflowName!: string;

  @ApiProperty({ type: 'integer', example: 2 })
  version!: number;

  @ApiProperty({ enum: RULE_SET_STATUSES, example: 'Active' })
  status!: RuleSetStatus;

  @ApiProperty({ enum: RULE_SET_SHAPES, description: 'The shape the engine recognised.', example: 'rules' })
  shape!: string;

  @ApiProperty({ type: 'string', format: 'date-time', example: CREATED_AT_EXAMPLE })
  createdAt!: string;

  @ApiProperty({ example: ACTOR_EXAMPLE })
  createdBy!: string;

  @ApiProperty({ type: 'string', nullable: true, example: 'Adults only; gold tier above 50,000' })
  changeDescription!: string | null;

  @ApiProperty({ type: 'string', nullable: true, example: ACTOR_EXAMPLE })
  submittedBy!: string | null;

  @ApiProperty({ type: 'string', format: 'date-time', nullable: true, example: SUBMITTED_AT_EXAMPLE })
  submittedAt!: string | null;

  @ApiProperty({ type: 'string', nullable: true, example: CHECKER_EXAMPLE })
  approvedBy!: string | null;

  @ApiProperty({ type: 'string', format: 'date-time', nullable: true, example: APPROVED_AT_EXAMPLE })
  approvedAt!: string | null;

  @ApiProperty({ type: 'string', nullable: true, example: CHECKER_EXAMPLE })
  activatedBy!: string | null;

  @ApiProperty({ type: 'string', format: 'date-time', nullable: true, example: ACTIVATED_AT_EXAMPLE })
  activatedAt!: string | null;

  @ApiProperty({ type: 'string', format: 'date-time', nullable: true, example: null })
  archivedAt!: string | null;

  @ApiProperty({ type: 'string', nullable: true, example: null })
  rejectedBy!: string | null;

  @ApiProperty({ type: 'string', format: 'date-time', nullable: true, example: null })
  rejectedAt!: string | null;

  @ApiProperty({
    type: 'string',
    nullable: true,
    description: 'The reason of the last rejection.',
    example: null,
  })
  rejectionReason!: string | null;
}

/** `GET /rulesets/{workflow}/versions`: a page of versions, newest first. */
export class VersionPageView {
  @ApiProperty({ example: WORKFLOW_EXAMPLE })
  workflowName!: string;

  @ApiProperty({
    type: 'integer',
    nullable: true,
    description: 'Null until a version is activated.',
    example: 2,
  })
  activeVersion!: number | null;

  @ApiProperty({ type: 'integer', description: 'The latest version number.', example: 2 })
  totalVersions!: number;

  @ApiProperty({ type: 'integer', example: 50 })
  limit!: number;

  @ApiProperty({ type: 'integer', example: 0 })
  offset!: number;

  @ApiProperty({
    type: VersionSummaryView,
    isArray: true,
    example: [
      {
        workflowName: WORKFLOW_EXAMPLE,
        version: 2,
        status: 'Active',
        shape: 'rules',
        createdAt: CREATED_AT_EXAMPLE,
        createdBy: ACTOR_EXAMPLE,
        changeDescription: 'Adults only; gold tier above 50,000',
        submittedBy: ACTOR_EXAMPLE,
        submittedAt: SUBMITTED_AT_EXAMPLE,
        approvedBy: CHECKER_EXAMPLE,
        approvedAt: APPROVED_AT_EXAMPLE,
        activatedBy: CHECKER_EXAMPLE,
        activatedAt: ACTIVATED_AT_EXAMPLE,
        archivedAt: null,
        rejectedBy: null,
        rejectedAt: null,
        rejectionReason: null,
      },
      {
        workflowName: WORKFLOW_EXAMPLE,
        version: 1,
        status: 'Archived',
        shape: 'rules',
        createdAt: '2026-03-01T08:00:00.000Z',
        createdBy: ACTOR_EXAMPLE,
        changeDescription: 'first version',
        submittedBy: ACTOR_EXAMPLE,
        submittedAt: '2026-03-01T08:05:00.000Z',
        approvedBy: CHECKER_EXAMPLE,
        approvedAt: '2026-03-01T08:40:00.000Z',
        activatedBy: CHECKER_EXAMPLE,
        activatedAt: '2026-03-01T09:00:00.000Z',
        archivedAt: ACTIVATED_AT_EXAMPLE,
        rejectedBy: null,
        rejectedAt: null,
        rejectionReason: null,
      },
    ],
  })
  versions!: VersionSummaryView[];
}

/** `GET /rulesets/{workflowName}/versions/{version}`: a version with its document. */
export class VersionDocumentView extends VersionSummaryView {
  @ApiProperty({
    type: 'array',
    items: { type: 'object', additionalProperties: true },
    description:
      'The rules as every shape exposes them: `{ id, name, …fields }` (rules-form and code-based rules as ' +
      'stored, legacy rules flattened with `/`-joined ids, flow-graph nodes), then one entry per embedded ' +
      'decision table.',
    example: RULES_FORM_EXAMPLE.rules,
  })
  rules!: unknown[];

  @ApiProperty({
    type: 'array',
    items: { type: 'object', additionalProperties: true },
    description: "The document's embedded decision tables (empty when it has none).",
    example: [],
  })
  decisionTables!: unknown[];

  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description: `The stored rule set document, as saved. ${RULE_SET_DOCUMENT_DESCRIPTION}`,
    example: RULES_FORM_EXAMPLE,
  })
  ruleSet!: Record<string, unknown>;
}

/** The answer of a save: the new (immutable) version. */
export class SaveResultView implements SaveResult {
  @ApiProperty({ example: WORKFLOW_EXAMPLE })
  workflowName!: string;

  @ApiProperty({ type: 'integer', description: 'The next number after the latest.', example: 3 })
  version!: number;

  @ApiProperty({
    enum: ['draft', 'active'],
    description: '`draft`, or `active` when `activateAfterSave` activated it (approval off).',
    example: 'draft',
  })
  status!: string;

  @ApiProperty({ format: 'date-time', example: CREATED_AT_EXAMPLE })
  createdAt!: string;

  @ApiProperty({ example: ACTOR_EXAMPLE })
  createdBy!: string;

  @ApiProperty({ description: 'Whether the save also activated the version.', example: false })
  activated!: boolean;

  @ApiProperty({ type: 'integer', description: "The workflow's change revision after the save.", example: 8 })
  revision!: number;

  @ApiProperty({ enum: RULE_SET_SHAPES, description: 'The shape the engine recognised.', example: 'rules' })
  shape!: RuleSetShape;
}

/** The answer of an activation. */
export class ActivationResultView implements ActivationResult {
  @ApiProperty({ example: WORKFLOW_EXAMPLE })
  workflowName!: string;

  @ApiProperty({ type: 'integer', example: 2 })
  version!: number;

  @ApiProperty({ enum: ['Active'] })
  status!: 'Active';

  @ApiProperty({ format: 'date-time', example: ACTIVATED_AT_EXAMPLE })
  activatedAt!: string;

  @ApiProperty({ example: CHECKER_EXAMPLE })
  activatedBy!: string;

  @ApiProperty({
    type: 'integer',
    nullable: true,
    description: 'The version this one replaced (now `Archived`); null when none was active.',
    example: 1,
  })
  previousActiveVersion!: number | null;

  @ApiProperty({ type: 'integer', example: 9 })
  revision!: number;
}

/** The statuses `actions` lead to, from the lifecycle table (what a transition's answer can carry). */
function statusesAfter(...actions: LifecycleAction[]): RuleSetStatus[] {
  const reached = new Set<RuleSetStatus>();
  for (const transitions of Object.values(VERSION_LIFECYCLE))
    for (const action of actions) {
      const to = transitions[action]?.to;
      if (to) reached.add(to);
    }
  return [...reached];
}

/** Fields every approval transition answers with. */
abstract class TransitionResultView {
  @ApiProperty({ example: WORKFLOW_EXAMPLE })
  workflowName!: string;

  @ApiProperty({ type: 'integer', example: 2 })
  version!: number;

  @ApiProperty({ description: 'The `detail` (or the reason, for a reject) recorded in the audit entry.' })
  detail!: string;

  @ApiProperty({
    type: 'integer',
    description: "The workflow's change revision after the transition.",
    example: 8,
  })
  revision!: number;
}

/** Submit: Draft → PendingApproval. */
export class SubmitResultView extends TransitionResultView {
  @ApiProperty({ enum: statusesAfter('submit') })
  status!: RuleSetStatus;

  @ApiProperty({ example: ACTOR_EXAMPLE })
  submittedBy!: string;

  @ApiProperty({ format: 'date-time', example: SUBMITTED_AT_EXAMPLE })
  submittedAt!: string;
}

/** Approve: PendingApproval → Approved (never by the submitter). */
export class ApproveResultView extends TransitionResultView {
  @ApiProperty({ enum: statusesAfter('approve') })
  status!: RuleSetStatus;

  @ApiProperty({ example: CHECKER_EXAMPLE })
  approvedBy!: string;

  @ApiProperty({ format: 'date-time', example: APPROVED_AT_EXAMPLE })
  approvedAt!: string;
}

/** Reject: PendingApproval → Draft, or → Rejected (terminal) with `final`. */
export class RejectResultView extends TransitionResultView {
  @ApiProperty({
    enum: statusesAfter('reject', 'reject-finally'),
    description: '`Draft`, or `Rejected` (terminal) with `final: true`.',
    example: 'Draft',
  })
  status!: RuleSetStatus;

  @ApiProperty({ example: CHECKER_EXAMPLE })
  rejectedBy!: string;

  @ApiProperty({ format: 'date-time', example: APPROVED_AT_EXAMPLE })
  rejectedAt!: string;

  @ApiProperty({ example: 'Missing tests for the income threshold' })
  reason!: string;
}

/** A version awaiting approval. */
export class PendingApprovalView {
  @ApiProperty({ example: WORKFLOW_EXAMPLE })
  workflowName!: string;

  @ApiProperty({ type: 'integer', example: 3 })
  version!: number;

  @ApiProperty({ enum: statusesAfter('submit') })
  status!: RuleSetStatus;

  @ApiProperty({ type: 'string', nullable: true, example: ACTOR_EXAMPLE })
  submittedBy!: string | null;

  @ApiProperty({ type: 'string', format: 'date-time', nullable: true, example: SUBMITTED_AT_EXAMPLE })
  submittedAt!: string | null;

  @ApiProperty({ example: ACTOR_EXAMPLE })
  createdBy!: string;

  @ApiProperty({ type: 'string', format: 'date-time', example: CREATED_AT_EXAMPLE })
  createdAt!: string;

  @ApiProperty({ type: 'string', nullable: true, example: 'Adults only; gold tier above 50,000' })
  changeDescription!: string | null;
}

/** `GET /rulesets/pending-approvals`. */
export class PendingApprovalsView {
  @ApiProperty({ type: PendingApprovalView, isArray: true })
  items!: PendingApprovalView[];

  @ApiProperty({ type: 'integer', example: 1 })
  total!: number;
}

/** One problem the engine found in a document: its JSON path and what is wrong there. */
export class RuleSetProblemView {
  @ApiProperty({ description: 'JSON path into the submitted body.', example: 'rules[0].condition' })
  path!: string;

  @ApiProperty({ example: 'FEEL syntax error at line 1, column 6: unexpected end of input' })
  message!: string;
}

/** `POST /rulesets/{workflowName}/validate`: the engine's verdict (nothing is saved). */
export class ValidationResultView {
  @ApiProperty({ example: false })
  valid!: boolean;

  @ApiProperty({
    type: 'string',
    enum: NULLABLE_SHAPES,
    nullable: true,
    description: 'The recognised shape; null when the body is no rule set.',
    example: 'rules',
  })
  shape!: RuleSetShape | null;

  @ApiProperty({ type: RuleSetProblemView, isArray: true })
  errors!: RuleSetProblemView[];

  @ApiProperty({ type: RuleSetProblemView, isArray: true, description: 'Advice; the document stays valid.' })
  warnings!: RuleSetProblemView[];
}

/** A rule named in a diff. */
export class DiffRuleView {
  @ApiProperty({ example: 'high-income' })
  id!: string;

  @ApiProperty({ example: 'High income' })
  name!: string;
}

/** A rule present in both versions whose fields differ. */
export class ModifiedRuleView extends DiffRuleView {
  @ApiProperty({
    type: 'object',
    additionalProperties: {
      type: 'object',
      required: ['old', 'new'],
      properties: {
        old: { description: 'The value in `fromVersion` (any JSON; null when absent).' },
        new: { description: 'The value in `toVersion` (any JSON; null when absent).' },
      },
    },
    description: 'One entry per changed field: `{ <field>: { old, new } }`.',
    example: { condition: { old: 'applicant.income > 40000', new: 'applicant.income > 50000' } },
  })
  fieldChanges!: Record<string, { old: unknown; new: unknown }>;
}

export class DiffChangesView {
  @ApiProperty({ type: DiffRuleView, isArray: true, example: [{ id: 'adult', name: 'Adult applicant' }] })
  added!: DiffRuleView[];

  @ApiProperty({ type: ModifiedRuleView, isArray: true })
  modified!: ModifiedRuleView[];

  @ApiProperty({ type: DiffRuleView, isArray: true, example: [] })
  removed!: DiffRuleView[];
}

/** `GET /rulesets/{workflowName}/versions/{v1}/diff/{v2}`: rule-level differences (by rule id). */
export class RuleSetDiffView implements RuleSetDiff {
  @ApiProperty({ type: 'integer', example: 1 })
  fromVersion!: number;

  @ApiProperty({ type: 'integer', example: 2 })
  toVersion!: number;

  @ApiProperty({ type: DiffChangesView })
  changes!: DiffChangesView;
}

/** A workflow's audit entry (a link of the tenant's signed chain). */
export class RuleSetAuditEntryView {
  @ApiProperty({ type: 'string', format: 'date-time', example: ACTIVATED_AT_EXAMPLE })
  timestamp!: string;

  @ApiProperty({ example: CHECKER_EXAMPLE })
  actor!: string;

  @ApiProperty({ enum: AUDIT_ACTIONS, example: 'ACTIVATE' })
  action!: string;

  @ApiProperty({ type: 'integer', nullable: true, example: 2 })
  version!: number | null;

  @ApiProperty({ type: 'string', nullable: true, example: 'ship it' })
  detail!: string | null;

  @ApiProperty({ example: 'success' })
  status!: string;

  @ApiProperty({ type: 'integer', description: "Position in the tenant's chain.", example: 9 })
  seq!: number;

  @ApiProperty({ description: 'SHA-256 (hex) of the signed content.' })
  hash!: string;

  @ApiProperty({ description: "The previous entry's hash." })
  prevHash!: string;

  @ApiProperty({ description: 'base64 RSA signature of the content.' })
  signature!: string;

  @ApiProperty({ example: 'cp-audit-2026' })
  keyId!: string;
}

/** `GET /rulesets/{workflowName}/audit`: a page of the workflow's audit entries, newest first. */
export class RuleSetAuditPageView {
  @ApiProperty({ type: RuleSetAuditEntryView, isArray: true })
  entries!: RuleSetAuditEntryView[];

  @ApiProperty({ type: 'integer', example: 5 })
  total!: number;

  @ApiProperty({ type: 'integer', example: 1 })
  page!: number;

  @ApiProperty({ type: 'integer', example: 20 })
  pageSize!: number;
}

/** An invalidated workflow and its new revision. */
export class InvalidatedWorkflowView {
  @ApiProperty({ example: WORKFLOW_EXAMPLE })
  workflowName!: string;

  @ApiProperty({ type: 'integer', example: 10 })
  revision!: number;
}

/** `POST /cache/invalidate`. */
export class InvalidationView {
  @ApiProperty({ example: 'acme' })
  tenantId!: string;

  @ApiProperty({
    type: 'string',
    nullable: true,
    description: 'Null: every workflow of the tenant.',
    example: WORKFLOW_EXAMPLE,
  })
  workflowName!: string | null;

  @ApiProperty({ type: InvalidatedWorkflowView, isArray: true })
  invalidated!: InvalidatedWorkflowView[];

  @ApiProperty({ format: 'date-time', example: ACTIVATED_AT_EXAMPLE })
  invalidatedAt!: string;
}

export class CacheCountersView {
  @ApiProperty({ type: 'integer' })
  hits!: number;

  @ApiProperty({ type: 'integer' })
  misses!: number;

  @ApiProperty({ type: 'integer' })
  evictions!: number;

  @ApiProperty({ type: 'integer', description: 'Entries in the cache now.' })
  size!: number;
}

/** Hot-reload lag: from a change's `occurredAt` to this node's eviction (last 1,000 changes). */
export class ReloadLagView {
  @ApiProperty({ type: 'integer' })
  count!: number;

  @ApiProperty({ type: 'number', nullable: true, description: 'Null before the first change.' })
  p50!: number | null;

  @ApiProperty({ type: 'number', nullable: true })
  p99!: number | null;

  @ApiProperty({ type: 'number', nullable: true })
  max!: number | null;
}

export class ChangeCountersView {
  @ApiProperty({ type: 'integer', description: 'Change events this node published.' })
  published!: number;

  @ApiProperty({ type: 'integer', description: 'Change events this node received.' })
  received!: number;

  @ApiProperty({ type: 'integer', description: 'Revision polls run.' })
  pollRuns!: number;
}

export class HubCountersView {
  @ApiProperty({ type: 'integer', description: 'Push-hub connections on this node.' })
  connections!: number;
}

/** `GET /metrics`: this node's cache and propagation counters (also exported through OpenTelemetry). */
export class ChangeMetricsView {
  @ApiProperty({ type: CacheCountersView })
  cache!: CacheCountersView;

  @ApiProperty({ type: ReloadLagView })
  hotReloadLagMs!: ReloadLagView;

  @ApiProperty({ type: ChangeCountersView })
  changes!: ChangeCountersView;

  @ApiProperty({ type: HubCountersView })
  hub!: HubCountersView;
}

/** `GET /cache/{workflow}`: this node's cache entry of a workflow (loaded on a miss). */
export class CacheEntryView {
  @ApiProperty({ example: WORKFLOW_EXAMPLE })
  workflowName!: string;

  @ApiProperty({ type: 'integer', nullable: true, example: 2 })
  activeVersion!: number | null;

  @ApiProperty({ type: 'integer', example: 9 })
  revision!: number;

  @ApiProperty({
    type: 'string',
    enum: NULLABLE_SHAPES,
    nullable: true,
    description: 'Null when the workflow has no active version.',
    example: 'rules',
  })
  shape!: string | null;
}

/** `POST /rulesets/{workflow}/store/export`: the files written to the rule store. */
export class StoreExportView {
  @ApiProperty({ example: WORKFLOW_EXAMPLE })
  workflowName!: string;

  @ApiProperty({
    description: 'The directory written (`<root>/<tenant>/<workflow>`).',
    example: '/srv/rules/acme/loan',
  })
  directory!: string;

  @ApiProperty({ type: 'string', isArray: true, example: ['v000001.json', 'v000002.json'] })
  files!: string[];

  @ApiProperty({ type: 'integer', nullable: true, example: 2 })
  activeVersion!: number | null;
}

export class ImportedFileView {
  @ApiProperty({ example: 'v000003.json' })
  file!: string;

  @ApiProperty({ type: 'integer', description: 'The version it was saved as.', example: 3 })
  version!: number;
}

/** `POST /rulesets/{workflow}/store/import`: what the import saved, skipped and activated. */
export class StoreImportView {
  @ApiProperty({ example: WORKFLOW_EXAMPLE })
  workflowName!: string;

  @ApiProperty({ example: '/srv/rules/acme/loan' })
  directory!: string;

  @ApiProperty({ type: ImportedFileView, isArray: true })
  imported!: ImportedFileView[];

  @ApiProperty({
    type: 'string',
    isArray: true,
    description: 'Files whose version is already stored with the same rule set.',
    example: ['v000001.json', 'v000002.json'],
  })
  skipped!: string[];

  @ApiProperty({
    type: 'integer',
    nullable: true,
    description: 'Null when nothing was activated.',
    example: 3,
  })
  activatedVersion!: number | null;
}

export class TenantSummaryView {
  @ApiProperty({ example: 'acme' })
  tenantId!: string;

  @ApiProperty({ type: 'integer', description: 'Workflows with a rule set.', example: 4 })
  workflows!: number;

  @ApiProperty({ type: 'string', format: 'date-time', example: ACTIVATED_AT_EXAMPLE })
  lastModified!: string;
}

/** `GET /api/v1/tenants`: the tenants that have rule sets (cross-tenant). */
export class TenantListView {
  @ApiProperty({ type: TenantSummaryView, isArray: true })
  tenants!: TenantSummaryView[];
}

/** `GET /api/v1/rule-flow/contract`: what a flow designer needs to author a flow graph. */
export class RuleFlowContractView {
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description: "JSON Schema (draft 2020-12) of the flow-graph rule set, with each node kind's `config`.",
  })
  schema!: Record<string, unknown>;

  @ApiProperty({ enum: FLOW_NODE_KINDS, isArray: true, example: [...FLOW_NODE_KINDS] })
  nodeKinds!: readonly string[];

  @ApiProperty({ enum: FLOW_EDGE_KINDS, isArray: true, example: [...FLOW_EDGE_KINDS] })
  edgeKinds!: readonly string[];

  @ApiProperty({ enum: [1], type: 'integer' })
  schemaVersion!: number;
}

/** Response headers of the export routes. */
export const EXPORT_HEADERS = {
  'x-ruleset-workflow': { description: 'The workflow exported.', schema: { type: 'string' } },
  'x-ruleset-version': { description: 'The version exported.', schema: { type: 'integer' } },
  'x-ruleset-status': {
    description: 'Its status.',
    schema: { type: 'string', enum: [...RULE_SET_STATUSES] },
  },
  'content-disposition': {
    description: 'An attachment named `<workflow>.v<version>.json` (or `.yaml`).',
    schema: { type: 'string' },
  },
};

/** The export routes' answer: the rule set document itself, as JSON or YAML. */
export const EXPORT_CONTENT = {
  'application/json': {
    schema: {
      type: 'object',
      additionalProperties: true,
      description: `The rule set document as saved. ${RULE_SET_DOCUMENT_DESCRIPTION}`,
    },
    example: RULES_FORM_EXAMPLE,
  },
  'application/yaml': {
    schema: { type: 'string', description: 'The same document as YAML (keys sorted).' },
  },
};
