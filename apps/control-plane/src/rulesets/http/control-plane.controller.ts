import { Policies, RequirePermissions, RequirePolicy } from '@arbiter/auth';
import { CommonErrorCodes } from '@arbiter/contracts';
import { ApiErrorFamily, AppError, RequestContext } from '@arbiter/platform';
import {
  applyDecorators,
  Body,
  Controller,
  Get,
  HttpCode,
  Inject,
  Param,
  Post,
  Query,
  Res,
} from '@nestjs/common';
import { ApiBody, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { SignalRHub } from '../../hub';
import {
  ControlPlanePermissions,
  METRICS_PERMISSION_NOTE,
  nonNegative,
  parseVersion,
  RequestParamErrors,
} from '../../shared';
import { ActivateVersion } from '../application/activate-version';
import { ChangeMetrics } from '../application/change-metrics';
import { InvalidateRuleSets } from '../application/invalidate-rulesets';
import { RuleSetCache } from '../application/ruleset-cache';
import {
  approvalRoutesDisabled,
  RuleSetErrorFamily,
  RuleSetErrors,
  ruleSetNotFound,
} from '../application/ruleset-errors';
import { RuleSetQueries } from '../application/ruleset-queries';
import { SaveRuleSet } from '../application/save-ruleset';
import { VersionApproval } from '../application/version-approval';
import { FileRuleStore } from '../store/file-rule-store';
import { ActivateOptionalDto, InvalidateDto, SaveRuleSetDto, StoreImportDto, TransitionDto } from './dto';
import { ApiRuleSetErrors, BODY_ERRORS } from './error-cases';
import { RULE_SET_EXAMPLES } from './examples';
import { ApiExportQuery, ApiVersionPaging, ApiVersionParam, ApiWorkflowParam } from './parameters';
import { sendExport } from './rulesets.controller';
import {
  ActivationResultView,
  ApproveResultView,
  CacheEntryView,
  ChangeMetricsView,
  EXPORT_CONTENT,
  EXPORT_HEADERS,
  InvalidationView,
  PendingApprovalsView,
  RejectResultView,
  RuleSetListView,
  SaveResultView,
  StoreExportView,
  StoreImportView,
  SubmitResultView,
  VersionPageView,
} from './views';

function requireDetail(body: TransitionDto | undefined, action: string): string {
  const detail = body?.detail?.trim();
  if (!detail)
    throw new AppError(400, RuleSetErrors.DetailRequired, `detail is required to ${action} a version`, [
      { field: 'detail', message: 'required' },
    ]);
  return detail;
}

function requireReason(body: TransitionDto | undefined): string {
  const reason = (body?.reason ?? body?.detail)?.trim();
  if (!reason)
    throw new AppError(
      400,
      RuleSetErrors.RejectionReasonRequired,
      'A rejection reason is mandatory (body field reason)',
      [{ field: 'reason', message: 'required' }],
    );
  return reason;
}

/** Submit / approve / reject, shared by `/rulesets/{workflow}/{version}/…` and `/approvals/{workflow}/{version}/…`. */
abstract class ApprovalRoutes {
  constructor(protected readonly approval: VersionApproval) {}

  protected submitVersion(workflow: string, version: string, body: TransitionDto) {
    this.assertEnabled();
    return this.approval.submit(workflow, parseVersion(version), body?.actor, requireDetail(body, 'submit'));
  }
  protected approveVersion(workflow: string, version: string, body: TransitionDto) {
    this.assertEnabled();
    return this.approval.approve(
      workflow,
      parseVersion(version),
      body?.actor,
      requireDetail(body, 'approve'),
    );
  }
  protected rejectVersion(workflow: string, version: string, body: TransitionDto) {
    this.assertEnabled();
    return this.approval.reject(
      workflow,
      parseVersion(version),
      body?.actor,
      requireReason(body),
      body?.final === true,
    );
  }
  /** The approval routes exist only when RuleControlPlane:RequireApproval is true. */
  private assertEnabled() {
    if (!this.approval.enabled) throw approvalRoutesDisabled();
  }
}

const APPROVAL_PARAM_ERRORS = [RequestParamErrors.InvalidWorkflowName, RequestParamErrors.InvalidVersion];

const APPROVAL_ONLY =
  'Exists only while `RuleControlPlane:RequireApproval` is true (otherwise 404 `ROUTE_NOT_FOUND`).';

/** The documentation of a submit route (`alias`: the `/approvals/…` spelling). */
function SubmitOperation(alias: string | null): MethodDecorator {
  return applyDecorators(
    ApiOperation({
      summary: alias ? 'Submit a version for approval (alias)' : 'Submit a Draft version for approval',
      description:
        `Draft → PendingApproval; \`detail\` is required. ${APPROVAL_ONLY} Policy: \`cp.admin\`.` +
        (alias ? ` Same operation as \`${alias}\`.` : ''),
    }),
    ApiWorkflowParam('workflow'),
    ApiVersionParam(),
    ApiBody({
      type: TransitionDto,
      examples: { submit: { value: { detail: 'Adults only; ready for review' } } },
    }),
    ApiOkResponse({ type: SubmitResultView, description: 'The version, now PendingApproval' }),
    ApiRuleSetErrors({
      400: [...BODY_ERRORS, ...APPROVAL_PARAM_ERRORS, RuleSetErrors.DetailRequired],
      404: [
        RuleSetErrors.ApprovalRoutesDisabled,
        RuleSetErrors.RuleSetNotFound,
        RuleSetErrors.VersionNotFound,
      ],
      409: [RuleSetErrors.InvalidStateTransition],
    }),
  );
}

function ApproveOperation(alias: string | null): MethodDecorator {
  return applyDecorators(
    ApiOperation({
      summary: alias ? 'Approve a submitted version (alias)' : 'Approve a version awaiting approval',
      description:
        'PendingApproval → Approved; `detail` is required; the submitter cannot approve its own version ' +
        `(409 \`SELF_APPROVAL\`). ${APPROVAL_ONLY} Policy: \`cp.approver\`.` +
        (alias ? ` Same operation as \`${alias}\`.` : ''),
    }),
    ApiWorkflowParam('workflow'),
    ApiVersionParam(),
    ApiBody({
      type: TransitionDto,
      examples: { approve: { value: { detail: 'Reviewed with risk: thresholds match the policy' } } },
    }),
    ApiOkResponse({ type: ApproveResultView, description: 'The version, now Approved' }),
    ApiRuleSetErrors({
      400: [...BODY_ERRORS, ...APPROVAL_PARAM_ERRORS, RuleSetErrors.DetailRequired],
      404: [
        RuleSetErrors.ApprovalRoutesDisabled,
        RuleSetErrors.RuleSetNotFound,
        RuleSetErrors.VersionNotFound,
      ],
      409: [
        RuleSetErrors.InvalidStateTransition,
        RuleSetErrors.SelfApproval,
        RuleSetErrors.ScenarioGateNotPassed,
      ],
      503: [RuleSetErrors.ScenarioGateUnavailable],
    }),
  );
}

function RejectOperation(alias: string | null): MethodDecorator {
  return applyDecorators(
    ApiOperation({
      summary: alias ? 'Reject a submitted version (alias)' : 'Reject a version awaiting approval',
      description:
        'PendingApproval → Draft (it can be resubmitted), or with `final: true` → Rejected (terminal). A ' +
        `reason is mandatory (\`reason\`, or \`detail\`). ${APPROVAL_ONLY} Policy: \`cp.approver\`.` +
        (alias ? ` Same operation as \`${alias}\`.` : ''),
    }),
    ApiWorkflowParam('workflow'),
    ApiVersionParam(),
    ApiBody({
      type: TransitionDto,
      examples: {
        backToDraft: {
          summary: 'Back to Draft',
          value: { reason: 'Missing tests for the income threshold' },
        },
        finalDenial: {
          summary: 'Final denial (Rejected)',
          value: { reason: 'Superseded by the new scoring model', final: true },
        },
      },
    }),
    ApiOkResponse({ type: RejectResultView, description: 'The version, back to Draft (or Rejected)' }),
    ApiRuleSetErrors({
      400: [...BODY_ERRORS, ...APPROVAL_PARAM_ERRORS, RuleSetErrors.RejectionReasonRequired],
      404: [
        RuleSetErrors.ApprovalRoutesDisabled,
        RuleSetErrors.RuleSetNotFound,
        RuleSetErrors.VersionNotFound,
      ],
      409: [RuleSetErrors.InvalidStateTransition],
    }),
  );
}

/**
 * The /api/v1/control-plane rule set routes (`/me` lives in the auth module, `/audit/…` in the audit
 * module). Every route can answer 400 (a malformed `x-tenant-id`, besides its own parameters) and, with
 * a policy decision point configured (`ControlPlaneAuth:PolicyDecisionPointUrl`), 503 when it does not
 * answer.
 */
@ApiTags('rule sets (control-plane)')
@ApiErrorFamily(RuleSetErrorFamily)
@Controller('api/v1/control-plane')
export class ControlPlaneRuleSetsController extends ApprovalRoutes {
  constructor(
    @Inject(VersionApproval) approval: VersionApproval,
    @Inject(RuleSetQueries) private readonly queries: RuleSetQueries,
    @Inject(SaveRuleSet) private readonly saving: SaveRuleSet,
    @Inject(ActivateVersion) private readonly activation: ActivateVersion,
    @Inject(InvalidateRuleSets) private readonly invalidation: InvalidateRuleSets,
    @Inject(ChangeMetrics) private readonly metrics: ChangeMetrics,
    @Inject(RuleSetCache) private readonly cache: RuleSetCache,
    @Inject(SignalRHub) private readonly hub: SignalRHub,
    @Inject(FileRuleStore) private readonly store: FileRuleStore,
  ) {
    super(approval);
  }

  @Get('rulesets')
  @RequirePolicy(Policies.Viewer)
  @ApiOperation({ summary: "List the tenant's rule sets", description: 'Policy: `cp.viewer`.' })
  @ApiOkResponse({ type: RuleSetListView, description: "The tenant's rule sets" })
  @ApiRuleSetErrors()
  list(): Promise<RuleSetListView> {
    return this.queries.list();
  }

  @Get('rulesets/pending-approvals')
  @RequirePolicy(Policies.Viewer)
  @ApiOperation({
    summary: 'List the versions awaiting approval',
    description: "Every PendingApproval version of the tenant's workflows. Policy: `cp.viewer`.",
  })
  @ApiOkResponse({ type: PendingApprovalsView, description: 'The versions awaiting approval' })
  @ApiRuleSetErrors()
  pending(): Promise<PendingApprovalsView> {
    return this.queries.pendingApprovals();
  }

  @Get('rulesets/:workflow/versions')
  @RequirePolicy(Policies.Viewer)
  @ApiOperation({
    summary: "List a workflow's versions (newest first, paged)",
    description: 'Every lifecycle field of each version, no documents. Policy: `cp.viewer`.',
  })
  @ApiWorkflowParam('workflow')
  @ApiVersionPaging()
  @ApiOkResponse({ type: VersionPageView, description: 'A page of versions' })
  @ApiRuleSetErrors({
    400: [RequestParamErrors.InvalidWorkflowName, CommonErrorCodes.ValidationFailed],
    404: [RuleSetErrors.RuleSetNotFound],
  })
  versions(
    @Param('workflow') workflow: string,
    @Query() query: Record<string, string>,
  ): Promise<VersionPageView> {
    const limit = nonNegative(query.limit, 'limit', 50, 500) || 50;
    return this.queries.versions(workflow, limit, nonNegative(query.offset, 'offset', 0));
  }

  @Get('rulesets/:workflow/export')
  @RequirePolicy(Policies.Viewer)
  @ApiOperation({
    summary: 'Export a version of a rule set (JSON or YAML)',
    description:
      'The rule set document of `version`, or of the active version (404 `NO_ACTIVE_VERSION` when there is ' +
      'none). Policy: `cp.viewer`.',
  })
  @ApiWorkflowParam('workflow')
  @ApiExportQuery()
  @ApiOkResponse({ description: 'The rule set document', headers: EXPORT_HEADERS, content: EXPORT_CONTENT })
  @ApiRuleSetErrors({
    400: [
      RequestParamErrors.InvalidWorkflowName,
      RequestParamErrors.InvalidVersion,
      RuleSetErrors.InvalidExportFormat,
    ],
    404: [RuleSetErrors.RuleSetNotFound, RuleSetErrors.VersionNotFound, RuleSetErrors.NoActiveVersion],
  })
  async export(
    @Param('workflow') workflow: string,
    @Query('version') version: string | undefined,
    @Query('format') format: string | undefined,
    @Res({ passthrough: true }) reply: any,
  ) {
    const v = version ? parseVersion(version) : undefined;
    return sendExport(reply, await this.queries.exportDocument(workflow, v), format);
  }

  @Post('rulesets/:workflow')
  @RequirePolicy(Policies.Admin)
  @HttpCode(200)
  @ApiOperation({
    summary: 'Save a rule set as the next Draft version',
    description:
      'Validates the document (400 `INVALID_RULESET`, each problem by its JSON path) and stores it as the ' +
      "workflow's next, immutable version; with `activateAfterSave` (approval off), activates it too. " +
      'Policy: `cp.admin`.',
  })
  @ApiWorkflowParam('workflow')
  @ApiBody({
    type: SaveRuleSetDto,
    examples: Object.fromEntries(
      Object.entries(RULE_SET_EXAMPLES).map(([name, example]) => [
        name,
        { summary: example.summary, value: { ruleSet: example.value, detail: 'first version' } },
      ]),
    ),
  })
  @ApiOkResponse({ type: SaveResultView, description: 'The new version' })
  @ApiRuleSetErrors({
    400: [...BODY_ERRORS, RequestParamErrors.InvalidWorkflowName, RuleSetErrors.InvalidRuleSet],
    409: [RuleSetErrors.ScenarioGateNotPassed],
  })
  save(@Param('workflow') workflow: string, @Body() body: SaveRuleSetDto): Promise<SaveResultView> {
    return this.saving.execute(workflow, {
      document: body.ruleSet,
      activateAfterSave: body.activateAfterSave,
      actor: body.actor,
      detail: body.detail ?? null,
      pathPrefix: 'ruleSet',
    });
  }

  @Post('rulesets/:workflow/:version/activate')
  @RequirePolicy(Policies.Approver)
  @HttpCode(200)
  @ApiOperation({
    summary: 'Activate a version',
    description:
      'Approved → Active (or Draft → Active while approval is off); the active version is archived. A ' +
      'version still awaiting approval is a 409 `APPROVAL_REQUIRED`, any other state a 409 ' +
      '`INVALID_STATE_TRANSITION`. Policy: `cp.approver`.',
  })
  @ApiWorkflowParam('workflow')
  @ApiVersionParam()
  @ApiBody({ type: ActivateOptionalDto, required: false })
  @ApiOkResponse({ type: ActivationResultView, description: 'The version, now Active' })
  @ApiRuleSetErrors({
    400: [...BODY_ERRORS, RequestParamErrors.InvalidWorkflowName, RequestParamErrors.InvalidVersion],
    404: [RuleSetErrors.RuleSetNotFound, RuleSetErrors.VersionNotFound],
    409: [
      RuleSetErrors.ApprovalRequired,
      RuleSetErrors.InvalidStateTransition,
      RuleSetErrors.ScenarioGateNotPassed,
    ],
    503: [RuleSetErrors.ScenarioGateUnavailable],
  })
  activate(
    @Param('workflow') workflow: string,
    @Param('version') version: string,
    @Body() body: ActivateOptionalDto,
  ): Promise<ActivationResultView> {
    return this.activation.execute(workflow, parseVersion(version), body?.actor, body?.detail);
  }

  @Post('rulesets/:workflow/:version/submit')
  @RequirePolicy(Policies.Admin)
  @HttpCode(200)
  @SubmitOperation(null)
  submit(
    @Param('workflow') workflow: string,
    @Param('version') version: string,
    @Body() body: TransitionDto,
  ): Promise<SubmitResultView> {
    return this.submitVersion(workflow, version, body);
  }

  @Post('rulesets/:workflow/:version/approve')
  @RequirePolicy(Policies.Approver)
  @HttpCode(200)
  @ApproveOperation(null)
  approve(
    @Param('workflow') workflow: string,
    @Param('version') version: string,
    @Body() body: TransitionDto,
  ): Promise<ApproveResultView> {
    return this.approveVersion(workflow, version, body);
  }

  @Post('rulesets/:workflow/:version/reject')
  @RequirePolicy(Policies.Approver)
  @HttpCode(200)
  @RejectOperation(null)
  reject(
    @Param('workflow') workflow: string,
    @Param('version') version: string,
    @Body() body: TransitionDto,
  ): Promise<RejectResultView> {
    return this.rejectVersion(workflow, version, body);
  }

  @Post('approvals/:workflow/:version/submit')
  @RequirePolicy(Policies.Admin)
  @HttpCode(200)
  @SubmitOperation('POST /api/v1/control-plane/rulesets/{workflow}/{version}/submit')
  submitAlias(
    @Param('workflow') workflow: string,
    @Param('version') version: string,
    @Body() body: TransitionDto,
  ): Promise<SubmitResultView> {
    return this.submitVersion(workflow, version, body);
  }

  @Post('approvals/:workflow/:version/approve')
  @RequirePolicy(Policies.Approver)
  @HttpCode(200)
  @ApproveOperation('POST /api/v1/control-plane/rulesets/{workflow}/{version}/approve')
  approveAlias(
    @Param('workflow') workflow: string,
    @Param('version') version: string,
    @Body() body: TransitionDto,
  ): Promise<ApproveResultView> {
    return this.approveVersion(workflow, version, body);
  }

  @Post('approvals/:workflow/:version/reject')
  @RequirePolicy(Policies.Approver)
  @HttpCode(200)
  @RejectOperation('POST /api/v1/control-plane/rulesets/{workflow}/{version}/reject')
  rejectAlias(
    @Param('workflow') workflow: string,
    @Param('version') version: string,
    @Body() body: TransitionDto,
  ): Promise<RejectResultView> {
    return this.rejectVersion(workflow, version, body);
  }

  @Post('cache/invalidate')
  @RequirePolicy(Policies.Admin)
  @HttpCode(200)
  @ApiOperation({
    summary: 'Invalidate cached rule sets on every node',
    description:
      'Raises the revision of one workflow (or of every workflow of the tenant), audited as INVALIDATE; each node evicts its entry when the change reaches it. Policy: `cp.admin`.',
  })
  @ApiOkResponse({ type: InvalidationView, description: 'The invalidated workflows and their new revisions' })
  @ApiRuleSetErrors({
    400: [...BODY_ERRORS, RequestParamErrors.InvalidWorkflowName],
    404: [RuleSetErrors.RuleSetNotFound],
  })
  invalidate(@Body() body: InvalidateDto): Promise<InvalidationView> {
    return this.invalidation.execute(body?.workflowName, body?.actor, body?.detail);
  }

  @Get('metrics')
  @RequirePermissions(ControlPlanePermissions.Metrics)
  @ApiOperation({
    summary: "This node's rule set cache and change propagation metrics",
    description: METRICS_PERMISSION_NOTE,
  })
  @ApiOkResponse({ type: ChangeMetricsView, description: "This node's counters" })
  @ApiRuleSetErrors()
  metricsView(): ChangeMetricsView {
    return { ...this.metrics.snapshot(), hub: { connections: this.hub.connectionCount } };
  }

  @Post('rulesets/:workflow/store/export')
  @RequirePolicy(Policies.Admin)
  @HttpCode(200)
  @ApiOperation({
    summary: 'Export every version of a workflow to the file-backed rule store',
    description:
      'Writes `<RuleStoreConfigs:RootPath>/<tenant>/<workflow>/v000001.json`… and `workflow.json` (keys ' +
      'sorted, for Git). 409 `FILE_STORE_NOT_CONFIGURED` without a root path. No body. Policy: `cp.admin`.',
  })
  @ApiWorkflowParam('workflow')
  @ApiOkResponse({ type: StoreExportView, description: 'The files written' })
  @ApiRuleSetErrors({
    400: [RequestParamErrors.InvalidWorkflowName],
    404: [RuleSetErrors.RuleSetNotFound],
    409: [RuleSetErrors.FileStoreNotConfigured],
  })
  storeExport(@Param('workflow') workflow: string): Promise<StoreExportView> {
    return this.store.exportWorkflow(workflow);
  }

  @Post('rulesets/:workflow/store/import')
  @RequirePolicy(Policies.Admin)
  @HttpCode(200)
  @ApiOperation({
    summary: 'Import new versions of a workflow from the file-backed rule store',
    description:
      'Saves each version file above the latest stored version through the normal save (same validation, ' +
      'audited as IMPORT); a stored version whose file differs is a 409 `FILE_STORE_CONFLICT` (versions are ' +
      'immutable). Policy: `cp.admin`.',
  })
  @ApiWorkflowParam('workflow')
  @ApiOkResponse({ type: StoreImportView, description: 'What was imported, skipped and activated' })
  @ApiRuleSetErrors({
    400: [...BODY_ERRORS, RequestParamErrors.InvalidWorkflowName, RuleSetErrors.InvalidRuleSet],
    404: [RuleSetErrors.FileStoreNotFound],
    409: [
      RuleSetErrors.FileStoreNotConfigured,
      RuleSetErrors.FileStoreConflict,
      RuleSetErrors.ScenarioGateNotPassed,
    ],
    503: [RuleSetErrors.ScenarioGateUnavailable],
  })
  storeImport(@Param('workflow') workflow: string, @Body() body: StoreImportDto): Promise<StoreImportView> {
    return this.store.importWorkflow(workflow, { actor: body?.actor, activateLatest: body?.activateLatest });
  }

  /** Current cache entry of a workflow (diagnostics; loads it on a miss). */
  @Get('cache/:workflow')
  @RequirePolicy(Policies.Viewer)
  @ApiOperation({
    summary: "This node's cache entry of a workflow (loaded on a miss)",
    description: 'Diagnostics: the active version, revision and shape this node serves. Policy: `cp.viewer`.',
  })
  @ApiWorkflowParam('workflow')
  @ApiOkResponse({ type: CacheEntryView, description: "This node's cache entry" })
  @ApiRuleSetErrors({ 404: [RuleSetErrors.RuleSetNotFound] })
  async cached(@Param('workflow') workflow: string): Promise<CacheEntryView> {
    const entry = await this.cache.getActive(RequestContext.tenantId(), workflow);
    if (!entry) throw ruleSetNotFound(workflow);
    return {
      workflowName: entry.workflowName,
      activeVersion: entry.activeVersion,
      revision: entry.revision,
      shape: entry.shape,
    };
  }
}
