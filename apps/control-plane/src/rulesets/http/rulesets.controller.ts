import { Policies, RequirePolicy } from '@arbiter/auth';
import { CommonErrorCodes } from '@arbiter/contracts';
import { ApiErrorFamily, AppError, readPage } from '@arbiter/platform';
import { Body, Controller, Get, HttpCode, Inject, Param, Post, Query, Res } from '@nestjs/common';
import { ApiBody, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { dump } from 'js-yaml';
import { AuditVerificationView } from '../../audit';
import {
  assertWorkflowName,
  nonNegative,
  parseOptionalVersion,
  parseVersion,
  RequestParamErrors,
} from '../../shared';
import { ActivateVersion } from '../application/activate-version';
import { RuleSetErrorFamily, RuleSetErrors } from '../application/ruleset-errors';
import { RuleSetQueries } from '../application/ruleset-queries';
import { SaveRuleSet } from '../application/save-ruleset';
import { ActivateDto, ActivateOptionalDto, ExportDto, SaveRuleSetDto, SaveRulesDto } from './dto';
import { ApiRuleSetErrors, BODY_ERRORS } from './error-cases';
import {
  LEGACY_EXAMPLE,
  RULE_SET_DOCUMENT_DESCRIPTION,
  RULE_SET_EXAMPLES,
  RULES_FORM_EXAMPLE,
} from './examples';
import {
  ApiAuditPaging,
  ApiExportQuery,
  ApiVersionPaging,
  ApiVersionParam,
  ApiWorkflowParam,
} from './parameters';
import {
  ActivationResultView,
  EXPORT_CONTENT,
  EXPORT_HEADERS,
  RuleSetAuditPageView,
  RuleSetDiffView,
  RuleSetListView,
  SaveResultView,
  ValidationResultView,
  VersionDocumentView,
  VersionPageView,
} from './views';

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

/**
 * The /api/v1/rule-engine/rulesets routes. Every route can answer 400 (a malformed `x-tenant-id`, besides
 * its own parameters) and, with a policy decision point configured
 * (`ControlPlaneAuth:PolicyDecisionPointUrl`), 503 when it does not answer.
 */
@ApiTags('rule sets (rule-engine)')
@ApiErrorFamily(RuleSetErrorFamily)
@Controller('api/v1/rule-engine/rulesets')
export class RuleEngineRuleSetsController {
  constructor(
    @Inject(RuleSetQueries) private readonly queries: RuleSetQueries,
    @Inject(SaveRuleSet) private readonly saving: SaveRuleSet,
    @Inject(ActivateVersion) private readonly activation: ActivateVersion,
  ) {}

  @Get()
  @RequirePolicy(Policies.Viewer)
  @ApiOperation({ summary: "List the tenant's rule sets", description: 'Policy: `cp.viewer`.' })
  @ApiOkResponse({ type: RuleSetListView, description: "The tenant's rule sets" })
  @ApiRuleSetErrors()
  list(): Promise<RuleSetListView> {
    return this.queries.list();
  }

  @Get(':workflowName/versions')
  @RequirePolicy(Policies.Viewer)
  @ApiOperation({
    summary: "List a workflow's versions (newest first, paged)",
    description:
      'Every lifecycle field of each version, no documents, with the active and latest version numbers. ' +
      'Policy: `cp.viewer`.',
  })
  @ApiWorkflowParam('workflowName')
  @ApiVersionPaging()
  @ApiOkResponse({ type: VersionPageView, description: 'A page of versions' })
  @ApiRuleSetErrors({
    400: [RequestParamErrors.InvalidWorkflowName, CommonErrorCodes.ValidationFailed],
    404: [RuleSetErrors.RuleSetNotFound],
  })
  versions(
    @Param('workflowName') workflowName: string,
    @Query() query: Record<string, string>,
  ): Promise<VersionPageView> {
    const limit = nonNegative(query.limit, 'limit', 50, 500) || 50;
    return this.queries.versions(workflowName, limit, nonNegative(query.offset, 'offset', 0));
  }

  @Get(':workflowName/versions/:version')
  @RequirePolicy(Policies.Viewer)
  @ApiOperation({
    summary: 'One version with its document',
    description:
      'The lifecycle fields, the rules, the decision tables and the rule set itself. Policy: `cp.viewer`.',
  })
  @ApiWorkflowParam('workflowName')
  @ApiVersionParam()
  @ApiOkResponse({ type: VersionDocumentView, description: 'The version and its document' })
  @ApiRuleSetErrors({
    400: [RequestParamErrors.InvalidWorkflowName, RequestParamErrors.InvalidVersion],
    404: [RuleSetErrors.RuleSetNotFound, RuleSetErrors.VersionNotFound],
  })
  version(
    @Param('workflowName') workflowName: string,
    @Param('version') version: string,
  ): Promise<VersionDocumentView> {
    return this.queries.version(workflowName, parseVersion(version));
  }

  @Post(':workflowName/save')
  @RequirePolicy(Policies.Admin)
  @HttpCode(200)
  @ApiOperation({
    summary: 'Save rules (the rules form) as the next Draft version',
    description:
      "The spec's `{ rules, decisionTables?, changeDescription }` form: validated by the engine (400 " +
      "`INVALID_RULESET`, each problem by its JSON path) and stored as the workflow's next, immutable " +
      'Draft version. Policy: `cp.admin`.',
  })
  @ApiWorkflowParam('workflowName')
  @ApiBody({
    type: SaveRulesDto,
    examples: {
      rulesForm: {
        summary: 'Two FEEL rules',
        value: { ...RULES_FORM_EXAMPLE, changeDescription: 'Adults only; gold tier above 50,000' },
      },
    },
  })
  @ApiOkResponse({ type: SaveResultView, description: 'The new version' })
  @ApiRuleSetErrors({
    400: [...BODY_ERRORS, RequestParamErrors.InvalidWorkflowName, RuleSetErrors.InvalidRuleSet],
  })
  saveRules(
    @Param('workflowName') workflowName: string,
    @Body() body: SaveRulesDto,
  ): Promise<SaveResultView> {
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
  @ApiOperation({
    summary: 'Activate a version (version in the body)',
    description:
      'Approved → Active (or Draft → Active while approval is off); the active version is archived. A ' +
      'version still awaiting approval is a 409 `APPROVAL_REQUIRED`, any other state a 409 ' +
      '`INVALID_STATE_TRANSITION`. Policy: `cp.approver`.',
  })
  @ApiWorkflowParam('workflowName')
  @ApiBody({
    type: ActivateDto,
    examples: { activate: { value: { version: 2, detail: 'ship it', actor: 'bob' } } },
  })
  @ApiOkResponse({ type: ActivationResultView, description: 'The version, now Active' })
  @ApiRuleSetErrors({
    400: [...BODY_ERRORS, RequestParamErrors.InvalidWorkflowName],
    404: [RuleSetErrors.RuleSetNotFound, RuleSetErrors.VersionNotFound],
    409: [
      RuleSetErrors.ApprovalRequired,
      RuleSetErrors.InvalidStateTransition,
      RuleSetErrors.ScenarioGateNotPassed,
    ],
    503: [RuleSetErrors.ScenarioGateUnavailable],
  })
  activate(
    @Param('workflowName') workflowName: string,
    @Body() body: ActivateDto,
  ): Promise<ActivationResultView> {
    return this.activation.execute(workflowName, body.version, body.actor, body.detail);
  }

  @Post(':workflowName/activate/:version')
  @RequirePolicy(Policies.Approver)
  @HttpCode(200)
  @ApiOperation({
    summary: 'Activate a version (version in the path)',
    description: 'Same as `POST /{workflowName}/activate`, the body optional. Policy: `cp.approver`.',
  })
  @ApiWorkflowParam('workflowName')
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
  activateVersion(
    @Param('workflowName') workflowName: string,
    @Param('version') version: string,
    @Body() body: ActivateOptionalDto = {},
  ): Promise<ActivationResultView> {
    return this.activation.execute(workflowName, parseVersion(version), body?.actor, body?.detail);
  }

  @Post(':workflowName/validate')
  @RequirePolicy(Policies.Viewer)
  @HttpCode(200)
  @ApiOperation({
    summary: 'Validate a rule set without saving it',
    description:
      'The body is the rule set document itself or `{ ruleSet: <document> }` (problem paths are then ' +
      'prefixed with `ruleSet.`). An invalid document is a 200 with `valid: false` and every problem. ' +
      'Policy: `cp.viewer`.',
  })
  @ApiWorkflowParam('workflowName')
  @ApiBody({
    description: `A rule set document, or \`{ ruleSet: <document> }\`. ${RULE_SET_DOCUMENT_DESCRIPTION}`,
    schema: { type: 'object', additionalProperties: true },
    examples: {
      ...RULE_SET_EXAMPLES,
      ruleSetForm: { summary: 'The `ruleSet` form', value: { ruleSet: LEGACY_EXAMPLE } },
    },
  })
  @ApiOkResponse({ type: ValidationResultView, description: "The engine's verdict" })
  @ApiRuleSetErrors({
    400: [
      CommonErrorCodes.MalformedJson,
      CommonErrorCodes.BodyTooDeep,
      RequestParamErrors.InvalidWorkflowName,
    ],
  })
  async validate(
    @Param('workflowName') workflowName: string,
    @Body() body: Record<string, unknown>,
  ): Promise<ValidationResultView> {
    const document = body && typeof body === 'object' && 'ruleSet' in body ? body.ruleSet : body;
    const prefix = body && typeof body === 'object' && 'ruleSet' in body ? 'ruleSet' : '';
    const outcome = await this.queries.validate(workflowName, document);
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
  @ApiOperation({
    summary: 'Export a version of a rule set (JSON or YAML)',
    description:
      'The rule set document of `version`, or of the active version (404 `NO_ACTIVE_VERSION` when there is ' +
      'none). Policy: `cp.viewer`.',
  })
  @ApiWorkflowParam('workflowName')
  @ApiBody({ type: ExportDto, examples: { yaml: { value: { format: 'yaml', version: 2 } } } })
  @ApiOkResponse({ description: 'The rule set document', headers: EXPORT_HEADERS, content: EXPORT_CONTENT })
  @ApiRuleSetErrors({
    400: [...BODY_ERRORS, RequestParamErrors.InvalidWorkflowName],
    404: [RuleSetErrors.RuleSetNotFound, RuleSetErrors.VersionNotFound, RuleSetErrors.NoActiveVersion],
  })
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
  @ApiOperation({
    summary: 'Export a version of a rule set (JSON or YAML)',
    description:
      'The rule set document of `version`, or of the active version (404 `NO_ACTIVE_VERSION` when there is ' +
      'none). Policy: `cp.viewer`.',
  })
  @ApiWorkflowParam('workflowName')
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
  @ApiOperation({
    summary: "A page of a workflow's audit entries (newest first)",
    description: "Each entry is a link of the tenant's signed audit chain. Policy: `cp.viewer`.",
  })
  @ApiWorkflowParam('workflowName')
  @ApiAuditPaging()
  @ApiOkResponse({ type: RuleSetAuditPageView, description: 'A page of audit entries' })
  @ApiRuleSetErrors({
    400: [RequestParamErrors.InvalidWorkflowName, CommonErrorCodes.ValidationFailed],
    404: [RuleSetErrors.RuleSetNotFound],
  })
  audit(
    @Param('workflowName') workflowName: string,
    @Query() query: Record<string, string>,
  ): Promise<RuleSetAuditPageView> {
    const { page, pageSize } = readPage(query, { defaultSize: 20, maxSize: 200 });
    return this.queries.auditPage(workflowName, page, pageSize);
  }

  @Get(':workflowName/audit/verify')
  @RequirePolicy(Policies.Viewer)
  @ApiOperation({
    summary: "Verify the signed audit chain a workflow's entries belong to",
    description:
      "Verifies the tenant's whole chain (a workflow's entries are links of it); a broken chain is a 200 " +
      'with `valid: false`. Policy: `cp.viewer`.',
  })
  @ApiWorkflowParam('workflowName')
  @ApiOkResponse({
    type: AuditVerificationView,
    description: 'The verification (a broken chain is `valid: false`)',
  })
  @ApiRuleSetErrors({ 400: [RequestParamErrors.InvalidWorkflowName], 404: [RuleSetErrors.RuleSetNotFound] })
  verify(@Param('workflowName') workflowName: string): Promise<AuditVerificationView> {
    return this.queries.verifyAudit(workflowName);
  }

  @Get(':workflowName/versions/:v1/diff/:v2')
  @RequirePolicy(Policies.Viewer)
  @ApiOperation({
    summary: 'Diff two versions rule by rule',
    description:
      'Rules (and embedded decision tables) matched by id: added, removed, and modified with the old and ' +
      'new value of each changed field. Policy: `cp.viewer`.',
  })
  @ApiWorkflowParam('workflowName')
  @ApiVersionParam('v1', 'The version to compare from.')
  @ApiVersionParam('v2', 'The version to compare to.')
  @ApiOkResponse({ type: RuleSetDiffView, description: 'The rule-level differences' })
  @ApiRuleSetErrors({
    400: [RequestParamErrors.InvalidWorkflowName, RequestParamErrors.InvalidVersion],
    404: [RuleSetErrors.RuleSetNotFound, RuleSetErrors.VersionNotFound],
  })
  diff(
    @Param('workflowName') workflowName: string,
    @Param('v1') v1: string,
    @Param('v2') v2: string,
  ): Promise<RuleSetDiffView> {
    return this.queries.diff(workflowName, parseVersion(v1, 'v1'), parseVersion(v2, 'v2'));
  }

  @Post(':workflowName/versions/:v1/diff/:v2')
  @RequirePolicy(Policies.Viewer)
  @HttpCode(200)
  @ApiOperation({
    summary: 'Diff two versions rule by rule (POST form)',
    description: 'Same as the GET form; no body. Policy: `cp.viewer`.',
  })
  @ApiWorkflowParam('workflowName')
  @ApiVersionParam('v1', 'The version to compare from.')
  @ApiVersionParam('v2', 'The version to compare to.')
  @ApiOkResponse({ type: RuleSetDiffView, description: 'The rule-level differences' })
  @ApiRuleSetErrors({
    400: [RequestParamErrors.InvalidWorkflowName, RequestParamErrors.InvalidVersion],
    404: [RuleSetErrors.RuleSetNotFound, RuleSetErrors.VersionNotFound],
  })
  diffPost(
    @Param('workflowName') workflowName: string,
    @Param('v1') v1: string,
    @Param('v2') v2: string,
  ): Promise<RuleSetDiffView> {
    return this.diff(workflowName, v1, v2);
  }

  @Post(':workflowName')
  @RequirePolicy(Policies.Admin)
  @HttpCode(200)
  @ApiOperation({
    summary: 'Save a rule set as the next Draft version',
    description:
      'Validates the document (400 `INVALID_RULESET`, each problem by its JSON path) and stores it as the ' +
      "workflow's next, immutable version; with `activateAfterSave` (approval off), activates it too. " +
      'Policy: `cp.admin`.',
  })
  @ApiWorkflowParam('workflowName')
  @ApiBody({
    type: SaveRuleSetDto,
    examples: Object.fromEntries(
      Object.entries(RULE_SET_EXAMPLES).map(([name, example]) => [
        name,
        {
          summary: example.summary,
          value: { ruleSet: example.value, activateAfterSave: false, detail: 'first version' },
        },
      ]),
    ),
  })
  @ApiOkResponse({ type: SaveResultView, description: 'The new version' })
  @ApiRuleSetErrors({
    400: [...BODY_ERRORS, RequestParamErrors.InvalidWorkflowName, RuleSetErrors.InvalidRuleSet],
    409: [RuleSetErrors.ScenarioGateNotPassed],
  })
  save(@Param('workflowName') workflowName: string, @Body() body: SaveRuleSetDto): Promise<SaveResultView> {
    return this.saving.execute(workflowName, {
      document: body.ruleSet,
      activateAfterSave: body.activateAfterSave,
      actor: body.actor,
      detail: body.detail ?? null,
      pathPrefix: 'ruleSet',
    });
  }
}
