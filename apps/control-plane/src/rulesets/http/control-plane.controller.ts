import { Policies, RequirePolicy } from '@arbiter/auth';
import { AppError, RequestContext } from '@arbiter/platform';
import { Body, Controller, Get, HttpCode, Inject, Param, Post, Query, Res } from '@nestjs/common';
import { ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { SignalRHub } from '../../hub';
import { nonNegative, parseVersion } from '../../shared';
import { ActivateVersion } from '../application/activate-version';
import { ChangeMetrics } from '../application/change-metrics';
import { InvalidateRuleSets } from '../application/invalidate-rulesets';
import { RuleSetCache } from '../application/ruleset-cache';
import { approvalRoutesDisabled, RuleSetErrors, ruleSetNotFound } from '../application/ruleset-errors';
import { RuleSetQueries } from '../application/ruleset-queries';
import { SaveRuleSet } from '../application/save-ruleset';
import { VersionApproval } from '../application/version-approval';
import { FileRuleStore } from '../store/file-rule-store';
import { ActivateOptionalDto, InvalidateDto, SaveRuleSetDto, StoreImportDto, TransitionDto } from './dto';
import { sendExport } from './rulesets.controller';

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

/**
 * The /api/v1/control-plane rule set routes (`/me` lives in the auth module, `/audit/…` in the audit
 * module).
 */
@ApiTags('rule sets (control plane)')
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
  list() {
    return this.queries.list();
  }

  @Get('rulesets/pending-approvals')
  @RequirePolicy(Policies.Viewer)
  @ApiOkResponse({
    description:
      '{ items: [{ workflowName, version, status, submittedBy, submittedAt, createdBy, createdAt, changeDescription }], total }',
  })
  pending() {
    return this.queries.pendingApprovals();
  }

  @Get('rulesets/:workflow/versions')
  @RequirePolicy(Policies.Viewer)
  versions(@Param('workflow') workflow: string, @Query() query: Record<string, string>) {
    const limit = nonNegative(query.limit, 'limit', 50, 500) || 50;
    return this.queries.versions(workflow, limit, nonNegative(query.offset, 'offset', 0));
  }

  @Get('rulesets/:workflow/export')
  @RequirePolicy(Policies.Viewer)
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
  save(@Param('workflow') workflow: string, @Body() body: SaveRuleSetDto) {
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
  activate(
    @Param('workflow') workflow: string,
    @Param('version') version: string,
    @Body() body: ActivateOptionalDto,
  ) {
    return this.activation.execute(workflow, parseVersion(version), body?.actor, body?.detail);
  }

  @Post('rulesets/:workflow/:version/submit')
  @RequirePolicy(Policies.Admin)
  @HttpCode(200)
  submit(
    @Param('workflow') workflow: string,
    @Param('version') version: string,
    @Body() body: TransitionDto,
  ) {
    return this.submitVersion(workflow, version, body);
  }

  @Post('rulesets/:workflow/:version/approve')
  @RequirePolicy(Policies.Approver)
  @HttpCode(200)
  approve(
    @Param('workflow') workflow: string,
    @Param('version') version: string,
    @Body() body: TransitionDto,
  ) {
    return this.approveVersion(workflow, version, body);
  }

  @Post('rulesets/:workflow/:version/reject')
  @RequirePolicy(Policies.Approver)
  @HttpCode(200)
  reject(
    @Param('workflow') workflow: string,
    @Param('version') version: string,
    @Body() body: TransitionDto,
  ) {
    return this.rejectVersion(workflow, version, body);
  }

  @Post('approvals/:workflow/:version/submit')
  @RequirePolicy(Policies.Admin)
  @HttpCode(200)
  submitAlias(
    @Param('workflow') workflow: string,
    @Param('version') version: string,
    @Body() body: TransitionDto,
  ) {
    return this.submitVersion(workflow, version, body);
  }

  @Post('approvals/:workflow/:version/approve')
  @RequirePolicy(Policies.Approver)
  @HttpCode(200)
  approveAlias(
    @Param('workflow') workflow: string,
    @Param('version') version: string,
    @Body() body: TransitionDto,
  ) {
    return this.approveVersion(workflow, version, body);
  }

  @Post('approvals/:workflow/:version/reject')
  @RequirePolicy(Policies.Approver)
  @HttpCode(200)
  rejectAlias(
    @Param('workflow') workflow: string,
    @Param('version') version: string,
    @Body() body: TransitionDto,
  ) {
    return this.rejectVersion(workflow, version, body);
  }

  @Post('cache/invalidate')
  @RequirePolicy(Policies.Admin)
  @HttpCode(200)
  @ApiOkResponse({
    description: '{ tenantId, workflowName, invalidated: [{ workflowName, revision }], invalidatedAt }',
  })
  invalidate(@Body() body: InvalidateDto) {
    return this.invalidation.execute(body?.workflowName, body?.actor, body?.detail);
  }

  @Get('metrics')
  @RequirePolicy(Policies.Viewer)
  @ApiOkResponse({
    description: '{ cache: { hits, misses, evictions, size }, hotReloadLagMs, changes, hub }',
  })
  metricsView() {
    return { ...this.metrics.snapshot(), hub: { connections: this.hub.connectionCount } };
  }

  @Post('rulesets/:workflow/store/export')
  @RequirePolicy(Policies.Admin)
  @HttpCode(200)
  storeExport(@Param('workflow') workflow: string) {
    return this.store.exportWorkflow(workflow);
  }

  @Post('rulesets/:workflow/store/import')
  @RequirePolicy(Policies.Admin)
  @HttpCode(200)
  storeImport(@Param('workflow') workflow: string, @Body() body: StoreImportDto) {
    return this.store.importWorkflow(workflow, { actor: body?.actor, activateLatest: body?.activateLatest });
  }

  /** Current cache entry of a workflow (diagnostics; loads it on a miss). */
  @Get('cache/:workflow')
  @RequirePolicy(Policies.Viewer)
  async cached(@Param('workflow') workflow: string) {
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
