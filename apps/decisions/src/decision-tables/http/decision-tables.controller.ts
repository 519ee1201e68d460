import { readPage } from '@arbiter/platform';
import { Body, Controller, Delete, Get, HttpCode, Inject, Param, Post, Put, Query } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { DecisionTableAuthoringService } from '../application/decision-table-authoring.service';
import { DecisionTableEvaluationService } from '../application/decision-table-evaluation.service';
import { optionalVersion, parseVersion } from '../request-values';
import { DecisionTableDto } from './dto';

export const TABLE_PAGE = { defaultSize: 50, maxSize: 200 };
const AUDIT_PAGE = { defaultSize: 20, maxSize: 100 };

@ApiTags('decision tables')
@Controller('api/v1/decision-tables')
export class DecisionTablesController {
  constructor(
    @Inject(DecisionTableAuthoringService) private readonly tables: DecisionTableAuthoringService,
    @Inject(DecisionTableEvaluationService) private readonly evaluation: DecisionTableEvaluationService,
  ) {}

  @Get()
  list(@Query() query: Record<string, unknown>) {
    const tenantId = typeof query.tenantId === 'string' && query.tenantId ? query.tenantId : undefined;
    return this.tables.list(readPage(query, TABLE_PAGE), tenantId);
  }

  @Post()
  create(@Body() body: DecisionTableDto) {
    return this.tables.create(body as unknown as Record<string, unknown>);
  }

  @Get('metrics')
  metrics() {
    return this.evaluation.metrics();
  }

  @Post('validate')
  @HttpCode(200)
  validate(@Body() body: unknown) {
    return this.tables.validate(body);
  }

  @Post('analyze')
  @HttpCode(200)
  analyzeDefinition(@Body() body: unknown) {
    return this.tables.analyzeDefinition(body);
  }

  @Get('audit')
  globalAudit(@Query() query: Record<string, unknown>) {
    const tenantId = typeof query.tenantId === 'string' && query.tenantId ? query.tenantId : undefined;
    return this.tables.globalAudit(readPage(query, AUDIT_PAGE), tenantId);
  }

  @Get('by-name/:name')
  getByName(@Param('name') name: string, @Query('version') version: string | undefined) {
    return this.tables.getByName(name, optionalVersion(version));
  }

  @Get(':id')
  get(@Param('id') id: string) {
    return this.tables.get(id);
  }

  @Put(':id')
  update(@Param('id') id: string, @Body() body: DecisionTableDto) {
    return this.tables.update(id, body as unknown as Record<string, unknown>);
  }

  @Delete(':id')
  @HttpCode(204)
  async remove(@Param('id') id: string): Promise<void> {
    await this.tables.remove(id);
  }

  @Post(':id/execute')
  @HttpCode(200)
  execute(@Param('id') id: string, @Body() body: unknown) {
    return this.evaluation.execute(id, body ?? {});
  }

  @Get(':id/versions')
  versions(@Param('id') id: string, @Query() query: Record<string, unknown>) {
    return this.tables.versions(id, readPage(query, TABLE_PAGE));
  }

  @Get(':id/versions/:version')
  version(@Param('id') id: string, @Param('version') version: string) {
    return this.tables.get(id, parseVersion(version));
  }

  @Get(':id/versions/:from/diff/:to')
  diff(@Param('id') id: string, @Param('from') from: string, @Param('to') to: string) {
    return this.tables.diff(id, parseVersion(from, 'fromVersion'), parseVersion(to, 'toVersion'));
  }

  @Post(':id/validate')
  @HttpCode(200)
  async validateFor(@Param('id') id: string, @Body() body: unknown) {
    await this.tables.get(id);
    return this.tables.validate(body);
  }

  @Post(':id/analyze')
  @HttpCode(200)
  analyze(@Param('id') id: string, @Query('version') version?: string) {
    return this.evaluation.analyze(id, optionalVersion(version));
  }

  @Get(':id/audit')
  audit(@Param('id') id: string, @Query() query: Record<string, unknown>) {
    return this.tables.audit(id, readPage(query, AUDIT_PAGE));
  }
}
