import { ApiErrorFamily, ApiErrors, readPage } from '@arbiter/platform';
import {
  Body,
  Controller,
  Delete,
  Get,
  Headers,
  HttpCode,
  Inject,
  Param,
  Post,
  Put,
  Query,
  Res,
} from '@nestjs/common';
import {
  ApiBody,
  ApiCreatedResponse,
  ApiExtraModels,
  ApiHeader,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiTags,
} from '@nestjs/swagger';
import { DecisionTableAuthoringService } from '../application/decision-table-authoring.service';
import { DecisionTableEvaluationService } from '../application/decision-table-evaluation.service';
import { DecisionTableErrorFamily } from '../errors';
import { expectedVersions, optionalVersion, parseVersion, versionTag } from '../request-values';
import { DecisionTableDto, UpdateDecisionTableDto } from './dto';
import {
  ApiPageQuery,
  ApiTableIdParam,
  ApiTenantFilterQuery,
  ApiVersionParam,
  ApiVersionQuery,
} from './openapi-parts';
import {
  AnalysisResultView,
  CreatedTableView,
  DecisionTableMetricsView,
  DecisionTableView,
  ExecutionResultView,
  FieldChangeView,
  GlobalAuditEntryView,
  AuditEntryView,
  StoredTableAnalysisView,
  TableSummaryView,
  UpdatedTableView,
  ValidationResultView,
  VersionDiffView,
  VersionEntryView,
} from './views';
import { RequireDecisionsAccess } from '../../auth';

/** The response, as far as a route sets its headers. */
interface HeaderReply {
  header(name: string, value: string): unknown;
}

const ETAG_HEADER = {
  description:
    'The version\'s entity tag, `"v<version>"`: send it back as `If-Match` to update only that version.',
  schema: { type: 'string', example: '"v1"' },
};

export const TABLE_PAGE = { defaultSize: 50, maxSize: 200 };
const AUDIT_PAGE = { defaultSize: 20, maxSize: 100 };

/** An unsaved definition checked by the engine: content problems are answers, not errors. */
const DEFINITION_TO_CHECK =
  'A table definition (the create body). Whatever it holds is answered with 200: problems are listed in ' +
  'the result (spec rule 1), not refused.';

@ApiTags('decision tables')
@ApiErrorFamily(DecisionTableErrorFamily)
@ApiExtraModels(FieldChangeView)
@Controller('api/v1/decision-tables')
export class DecisionTablesController {
  constructor(
    @Inject(DecisionTableAuthoringService) private readonly tables: DecisionTableAuthoringService,
    @Inject(DecisionTableEvaluationService) private readonly evaluation: DecisionTableEvaluationService,
  ) {}

  @Get()
  @RequireDecisionsAccess('viewer')
  @ApiOperation({ summary: "List the tenant's tables (summaries, ordered by name)" })
  @ApiPageQuery(TABLE_PAGE)
  @ApiTenantFilterQuery('Only the tables of this tenant.')
  @ApiOkResponse({ type: [TableSummaryView] })
  @ApiErrors(400)
  list(@Query() query: Record<string, unknown>) {
    const tenantId = typeof query.tenantId === 'string' && query.tenantId ? query.tenantId : undefined;
    return this.tables.list(readPage(query, TABLE_PAGE), tenantId);
  }

  @Post()
  @RequireDecisionsAccess('author')
  @ApiOperation({
    summary: 'Create a table (version 1)',
    description:
      'The body is checked field by field (400 `VALIDATION_FAILED`), then by the rule engine: every cell must ' +
      'be a valid FEEL unary test, every column known (400 `INVALID_TABLE`, one detail per row and column).',
  })
  @ApiCreatedResponse({ type: CreatedTableView, description: 'The table was created at version 1.' })
  @ApiErrors(409)
  create(@Body() body: DecisionTableDto) {
    return this.tables.create(body as unknown as Record<string, unknown>);
  }

  @Get('metrics')
  @ApiOperation({
    summary: "This replica's evaluation counters and compiled-table cache (operators only)",
    description:
      'The counts cover every tenant, so they are for operators: the permission `decision-tables.metrics` (or `*`; ' +
      'a service API key holds it); anyone else gets 403 `FORBIDDEN`.',
  })
  @ApiOkResponse({ type: DecisionTableMetricsView })
  @ApiErrors(403)
  metrics() {
    return this.evaluation.metrics();
  }

  @Post('validate')
  @RequireDecisionsAccess('viewer')
  @HttpCode(200)
  @ApiOperation({ summary: 'Validate a table definition without saving it' })
  @ApiBody({ type: DecisionTableDto, description: DEFINITION_TO_CHECK })
  @ApiOkResponse({ type: ValidationResultView })
  validate(@Body() body: unknown) {
    return this.tables.validate(body);
  }

  @Post('analyze')
  @RequireDecisionsAccess('viewer')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Analyse a table definition without saving it: overlaps, gaps, redundant rows',
    description: 'An invalid definition is 400 `INVALID_TABLE` (the validate route lists its problems).',
  })
  @ApiBody({ type: DecisionTableDto, description: 'A table definition (the create body).' })
  @ApiOkResponse({ type: AnalysisResultView })
  analyzeDefinition(@Body() body: unknown) {
    return this.tables.analyzeDefinition(body);
  }

  @Get('audit')
  @RequireDecisionsAccess('viewer')
  @ApiOperation({
    summary: "Every tenant's audit trail, newest first (administrators only)",
    description:
      'For the permission `decision-tables.audit.global` (or `*`) besides `decisions.viewer`; anyone else gets 403 ' +
      '`FORBIDDEN`.',
  })
  @ApiPageQuery(AUDIT_PAGE)
  @ApiTenantFilterQuery('Only the entries of this tenant.')
  @ApiOkResponse({ type: [GlobalAuditEntryView] })
  @ApiErrors(400)
  globalAudit(@Query() query: Record<string, unknown>) {
    const tenantId = typeof query.tenantId === 'string' && query.tenantId ? query.tenantId : undefined;
    return this.tables.globalAudit(readPage(query, AUDIT_PAGE), tenantId);
  }

  @Get('by-name/:name')
  @RequireDecisionsAccess('viewer')
  @ApiOperation({
    summary: 'Get a table by its name (latest version, or `version`)',
    description: 'How the control plane resolves the stored tables its flow nodes name.',
  })
  @ApiParam({ name: 'name', description: 'Table name (unique in the tenant).', example: 'Loan risk' })
  @ApiVersionQuery()
  @ApiOkResponse({ type: DecisionTableView })
  @ApiErrors(400, 404)
  getByName(@Param('name') name: string, @Query('version') version: string | undefined) {
    return this.tables.getByName(name, optionalVersion(version));
  }

  @Get(':id')
  @RequireDecisionsAccess('viewer')
  @ApiOperation({ summary: 'Get a table (latest version)' })
  @ApiTableIdParam()
  @ApiOkResponse({ type: DecisionTableView, headers: { ETag: ETAG_HEADER } })
  @ApiErrors(404)
  async get(@Param('id') id: string, @Res({ passthrough: true }) reply: HeaderReply) {
    const table = await this.tables.get(id);
    reply.header('etag', versionTag(table.version));
    return table;
  }

  @Put(':id')
  @RequireDecisionsAccess('author')
  @ApiOperation({
    summary: 'Update a table: writes a new version',
    description:
      'Previous versions are kept. Checked as on create. Optimistic concurrency: send the `version` the edit is ' +
      'based on (in the body) or the `ETag` of `GET /{id}` as `If-Match`; when the table has moved on meanwhile, ' +
      '409 `CONCURRENT_MODIFICATION` and nothing is written (of two concurrent updates of the same version, one ' +
      'is written). Without either, the update is based on whatever version is latest.',
  })
  @ApiTableIdParam()
  @ApiHeader({
    name: 'If-Match',
    required: false,
    description:
      'The `ETag` of the version the edit is based on (`"v<version>"`, as `GET /{id}` answers; `*`: any). Another ' +
      'version is 409 `CONCURRENT_MODIFICATION` (spec 2 maps concurrent modification to 409, where HTTP would say 412).',
    schema: { type: 'string', maxLength: 1000, example: '"v1"' },
  })
  @ApiBody({ type: UpdateDecisionTableDto })
  @ApiOkResponse({ type: UpdatedTableView, headers: { ETag: ETAG_HEADER } })
  @ApiErrors(404, 409)
  async update(
    @Param('id') id: string,
    @Body() body: UpdateDecisionTableDto,
    @Headers('if-match') ifMatch: string | undefined,
    @Res({ passthrough: true }) reply: HeaderReply,
  ) {
    const updated = await this.tables.update(
      id,
      body as unknown as Record<string, unknown>,
      expectedVersions(ifMatch, body.version),
    );
    reply.header('etag', versionTag(updated.version));
    return updated;
  }

  @Delete(':id')
  @RequireDecisionsAccess('admin')
  @HttpCode(204)
  @ApiOperation({ summary: 'Delete a table and all its versions' })
  @ApiTableIdParam()
  @ApiNoContentResponse({ description: 'Deleted.' })
  @ApiErrors(404)
  async remove(@Param('id') id: string): Promise<void> {
    await this.tables.remove(id);
  }

  @Post(':id/execute')
  @RequireDecisionsAccess('viewer')
  @HttpCode(200)
  @ApiOperation({
    summary:
      'Evaluate a version (the latest, or `version`) against flat input facts: `{ matchedRows, outputs }`',
    description:
      'A `version` that is not a positive integer is 400 `INVALID_VERSION`; one the table does not have, 404 `VERSION_NOT_FOUND`.',
  })
  @ApiTableIdParam()
  @ApiVersionQuery('Version to evaluate (default: the latest).')
  @ApiBody({
    required: false,
    description: 'The input facts themselves: input column (or fact) name → value (absent: none).',
    schema: { type: 'object', additionalProperties: true, example: { age: 10 } },
  })
  @ApiOkResponse({ type: ExecutionResultView })
  @ApiErrors(400, 404, 422)
  execute(@Param('id') id: string, @Body() body: unknown, @Query('version') version?: string) {
    return this.evaluation.execute(id, body ?? {}, optionalVersion(version));
  }

  @Get(':id/versions')
  @RequireDecisionsAccess('viewer')
  @ApiOperation({ summary: "List a table's versions, newest first" })
  @ApiTableIdParam()
  @ApiPageQuery(TABLE_PAGE)
  @ApiOkResponse({ type: [VersionEntryView] })
  @ApiErrors(400, 404)
  versions(@Param('id') id: string, @Query() query: Record<string, unknown>) {
    return this.tables.versions(id, readPage(query, TABLE_PAGE));
  }

  @Get(':id/versions/:version')
  @RequireDecisionsAccess('viewer')
  @ApiOperation({ summary: 'Get a table as it was at one version' })
  @ApiTableIdParam()
  @ApiVersionParam('version', 'Version number.')
  @ApiOkResponse({ type: DecisionTableView })
  @ApiErrors(400, 404)
  version(@Param('id') id: string, @Param('version') version: string) {
    return this.tables.get(id, parseVersion(version));
  }

  @Get(':id/versions/:fromVersion/diff/:toVersion')
  @RequireDecisionsAccess('viewer')
  @ApiOperation({ summary: 'Compare two versions: changed fields, added, removed and modified rows' })
  @ApiTableIdParam()
  @ApiVersionParam('fromVersion', 'The older version.')
  @ApiVersionParam('toVersion', 'The newer version.')
  @ApiOkResponse({ type: VersionDiffView })
  @ApiErrors(400, 404)
  diff(@Param('id') id: string, @Param('fromVersion') from: string, @Param('toVersion') to: string) {
    return this.tables.diff(id, parseVersion(from, 'fromVersion'), parseVersion(to, 'toVersion'));
  }

  @Post(':id/validate')
  @RequireDecisionsAccess('viewer')
  @HttpCode(200)
  @ApiOperation({ summary: 'Validate a table definition for an existing table without saving it' })
  @ApiTableIdParam()
  @ApiBody({ type: DecisionTableDto, description: DEFINITION_TO_CHECK })
  @ApiOkResponse({ type: ValidationResultView })
  @ApiErrors(404)
  async validateFor(@Param('id') id: string, @Body() body: unknown) {
    await this.tables.get(id);
    return this.tables.validate(body);
  }

  @Post(':id/analyze')
  @RequireDecisionsAccess('viewer')
  @HttpCode(200)
  @ApiOperation({ summary: 'Analyse a stored version: overlaps, gaps, redundant rows' })
  @ApiTableIdParam()
  @ApiVersionQuery('Version to analyse (default: the latest).')
  @ApiOkResponse({ type: StoredTableAnalysisView })
  @ApiErrors(400, 404)
  analyze(@Param('id') id: string, @Query('version') version?: string) {
    return this.tables.analyzeStored(id, optionalVersion(version));
  }

  @Get(':id/audit')
  @RequireDecisionsAccess('viewer')
  @ApiOperation({ summary: "A table's audit trail, newest first" })
  @ApiTableIdParam()
  @ApiPageQuery(AUDIT_PAGE)
  @ApiOkResponse({ type: [AuditEntryView] })
  @ApiErrors(400, 404)
  audit(@Param('id') id: string, @Query() query: Record<string, unknown>) {
    return this.tables.audit(id, readPage(query, AUDIT_PAGE));
  }
}
