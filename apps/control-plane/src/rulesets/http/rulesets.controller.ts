import { Policies, RequirePolicy } from '@arbiter/auth';
import { AppError, readPage } from '@arbiter/platform';
import { Body, Controller, Get, HttpCode, Inject, Param, Post, Query, Res } from '@nestjs/common';
import { ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { dump } from 'js-yaml';
import { assertWorkflowName, nonNegative, parseOptionalVersion, parseVersion } from '../../shared';
import { ActivateVersion } from '../application/activate-version';
import { RuleSetErrors } from '../application/ruleset-errors';
import { RuleSetQueries } from '../application/ruleset-queries';
import { SaveRuleSet } from '../application/save-ruleset';
import { ActivateDto, ActivateOptionalDto, ExportDto, SaveRuleSetDto, SaveRulesDto } from './dto';

/** Writes an exported document as JSON (the rule set itself) or YAML, version and status in headers. */
export function sendExport(
  reply: any,
  exported: { version: number; status: string; workflowName: string; ruleSet: Record<string, unknown> },
  format: string | undefined,
) {
  const fmt = (format ?? 'json').toLowerCase();
  if (fmt !== 'json' && fmt !== 'yaml')
    throw AppError.badRequest(RuleSetErrors.InvalidExportFormat, `format must be 'json' or 'yaml'`, [
      { field: 'format', message: "must be 'json' or 'yaml'" },
    ]);
  reply.header('x-ruleset-workflow', exported.workflowName);
  reply.header('x-ruleset-version', String(exported.version));
  reply.header('x-ruleset-status', exported.status);
  reply.header(
    'content-disposition',
    `attachment; filename="${exported.workflowName}.v${exported.version}.${fmt === 'yaml' ? 'yaml' : 'json'}"`,
  );
  if (fmt === 'yaml') {
    reply.header('content-type', 'application/yaml; charset=utf-8');
    return dump(exported.ruleSet, { sortKeys: true, noRefs: true });
  }
  return exported.ruleSet;
}

/** The /api/v1/rule-engine/rulesets routes. */
@ApiTags('rule sets (rule-engine)')
@Controller('api/v1/rule-engine/rulesets')
export class RuleEngineRuleSetsController {
  constructor(
    @Inject(RuleSetQueries) private readonly queries: RuleSetQueries,
    @Inject(SaveRuleSet) private readonly saving: SaveRuleSet,
    @Inject(ActivateVersion) private readonly activation: ActivateVersion,
  ) {}

  @Get()
  @RequirePolicy(Policies.Viewer)
  @ApiOkResponse({
    description: '{ rulesets: [{ workflowName, activeVersion, totalVersions, lastModified, modifiedBy }] }',
  })
  list() {
    return this.queries.list();
  }

  @Get(':workflowName/versions')
  @RequirePolicy(Policies.Viewer)
  versions(@Param('workflowName') workflowName: string, @Query() query: Record<string, string>) {
    const limit = nonNegative(query.limit, 'limit', 50, 500) || 50;
    return this.queries.versions(workflowName, limit, nonNegative(query.offset, 'offset', 0));
  }

  @Get(':workflowName/versions/:version')
  @RequirePolicy(Policies.Viewer)
  version(@Param('workflowName') workflowName: string, @Param('version') version: string) {
    return this.queries.version(workflowName, parseVersion(version));
  }

  @Post(':workflowName/save')
  @RequirePolicy(Policies.Admin)
  @HttpCode(200)
  @ApiOkResponse({ description: '{ version, status: "draft", createdAt, createdBy, … }' })
  saveRules(@Param('workflowName') workflowName: string, @Body() body: SaveRulesDto) {
    const document: Record<string, unknown> = { rules: body.rules };
    if (body.decisionTables !== undefined) document.decisionTables = body.decisionTables;
    if (body.expressionLanguage !== undefined) document.expressionLanguage = body.expressionLanguage;
    return this.saving.execute(workflowName, {
      document,
      actor: body.actor,
      detail: body.changeDescription ?? null,
    });
  }

  @Post(':workflowName/activate')
  @RequirePolicy(Policies.Approver)
  @HttpCode(200)
  activate(@Param('workflowName') workflowName: string, @Body() body: ActivateDto) {
    return this.activation.execute(workflowName, body.version, body.actor, body.detail);
  }

  @Post(':workflowName/activate/:version')
  @RequirePolicy(Policies.Approver)
  @HttpCode(200)
  activateVersion(
    @Param('workflowName') workflowName: string,
    @Param('version') version: string,
    @Body() body: ActivateOptionalDto = {},
  ) {
    return this.activation.execute(workflowName, parseVersion(version), body?.actor, body?.detail);
  }

  @Post(':workflowName/validate')
  @RequirePolicy(Policies.Viewer)
  @HttpCode(200)
  @ApiOkResponse({ description: '{ valid, shape, errors: [{ path, message }], warnings }' })
  validate(@Param('workflowName') workflowName: string, @Body() body: Record<string, unknown>) {
    const document = body && typeof body === 'object' && 'ruleSet' in body ? body.ruleSet : body;
    const prefix = body && typeof body === 'object' && 'ruleSet' in body ? 'ruleSet' : '';
    const outcome = this.queries.validate(workflowName, document);
    return {
      ...outcome,
      errors: outcome.errors.map((e) => ({
        ...e,
        path: prefix && e.path ? `${prefix}.${e.path}` : prefix || e.path,
      })),
    };
  }

  @Post(':workflowName/export')
  @RequirePolicy(Policies.Viewer)
  @HttpCode(200)
  async exportPost(
    @Param('workflowName') workflowName: string,
    @Body() body: ExportDto,
    @Res({ passthrough: true }) reply: any,
  ) {
    assertWorkflowName(workflowName);
    if (body?.format !== undefined && !['json', 'yaml'].includes(body.format))
      sendExport(reply, {} as never, body.format);
    return sendExport(reply, await this.queries.exportDocument(workflowName, body?.version), body?.format);
  }

  @Get(':workflowName/export')
  @RequirePolicy(Policies.Viewer)
  async exportGet(
    @Param('workflowName') workflowName: string,
    @Query('version') version: string | undefined,
    @Query('format') format: string | undefined,
    @Res({ passthrough: true }) reply: any,
  ) {
    const v = parseOptionalVersion(version);
    if (format && !['json', 'yaml'].includes(format.toLowerCase())) sendExport(reply, {} as never, format);
    return sendExport(reply, await this.queries.exportDocument(workflowName, v), format);
  }

  @Get(':workflowName/audit')
  @RequirePolicy(Policies.Viewer)
  @ApiOkResponse({
    description:
      '{ entries: [{ timestamp, actor, action, version, detail, status, seq, hash, prevHash, signature, keyId }], total, page }',
  })
  audit(@Param('workflowName') workflowName: string, @Query() query: Record<string, string>) {
    const { page, pageSize } = readPage(query, { defaultSize: 20, maxSize: 200 });
    return this.queries.auditPage(workflowName, page, pageSize);
  }

  @Get(':workflowName/audit/verify')
  @RequirePolicy(Policies.Viewer)
  @ApiOkResponse({
    description: '{ valid, tenantId, entriesChecked, firstBadEntry, reason, headSeq, workflowName, keyId }',
  })
  verify(@Param('workflowName') workflowName: string) {
    return this.queries.verifyAudit(workflowName);
  }

  @Get(':workflowName/versions/:v1/diff/:v2')
  @RequirePolicy(Policies.Viewer)
  @ApiOkResponse({
    description: '{ fromVersion, toVersion, changes: { added, modified: [{ id, fieldChanges }], removed } }',
  })
  diff(@Param('workflowName') workflowName: string, @Param('v1') v1: string, @Param('v2') v2: string) {
    return this.queries.diff(workflowName, parseVersion(v1, 'v1'), parseVersion(v2, 'v2'));
  }

  @Post(':workflowName/versions/:v1/diff/:v2')
  @RequirePolicy(Policies.Viewer)
  @HttpCode(200)
  diffPost(@Param('workflowName') workflowName: string, @Param('v1') v1: string, @Param('v2') v2: string) {
    return this.diff(workflowName, v1, v2);
  }

  @Post(':workflowName')
  @RequirePolicy(Policies.Admin)
  @HttpCode(200)
  save(@Param('workflowName') workflowName: string, @Body() body: SaveRuleSetDto) {
    return this.saving.execute(workflowName, {
      document: body.ruleSet,
      activateAfterSave: body.activateAfterSave,
      actor: body.actor,
      detail: body.detail ?? null,
      pathPrefix: 'ruleSet',
    });
  }
}
