import { Policies, RequirePolicy } from '@arbiter/auth';
import { readPage } from '@arbiter/platform';
import { Body, Controller, Get, HttpCode, Inject, Param, Post, Query } from '@nestjs/common';
import { ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { UiCatalogService } from '../application/ui-catalog.service';
import { CaptureSnapshotDto } from './dto';

@ApiTags('ui catalog')
@Controller('api/v1/ui-catalog')
export class UiCatalogController {
  constructor(@Inject(UiCatalogService) private readonly service: UiCatalogService) {}

  @Get('apis')
  @RequirePolicy(Policies.Viewer)
  @ApiOkResponse({
    description: 'The control plane HTTP API: { apis: [{ method, path, summary, tags, policies }], total }',
  })
  apis() {
    return this.service.apis();
  }

  @Get('bindings')
  @RequirePolicy(Policies.Viewer)
  @ApiOkResponse({
    description:
      'Endpoint-to-rule bindings: { tenantId, generatedAt, pathTemplate, bindings: [{ method, path, workflowName, activeVersion, shape, ruleCodes, decisionTables, subFlows }], total }',
  })
  bindings() {
    return this.service.bindings();
  }

  @Get('graph')
  @RequirePolicy(Policies.Viewer)
  @ApiOkResponse({
    description:
      'Binding graph: { tenantId, generatedAt, nodes: [{ id, type, label }], edges: [{ from, to, kind }] }',
  })
  graph() {
    return this.service.graph();
  }

  @Get('snapshots')
  @RequirePolicy(Policies.Viewer)
  @ApiOkResponse({
    description:
      'Captured snapshots, newest first: { items: [{ id, tenantId, capturedAt, capturedBy, label, bindingCount, nodeCount, edgeCount }], total, page, pageSize }',
  })
  async snapshots(@Query() query: Record<string, string>) {
    const { page, pageSize, offset } = readPage(query, { defaultSize: 20, maxSize: 100 });
    const { items, total } = await this.service.snapshots(pageSize, offset);
    return { items, total, page, pageSize };
  }

  @Get('snapshots/:id')
  @RequirePolicy(Policies.Viewer)
  @ApiOkResponse({ description: 'One snapshot with its bindings and graph' })
  snapshot(@Param('id') id: string) {
    return this.service.snapshot(id);
  }

  @Post('snapshots/capture')
  @RequirePolicy(Policies.Admin)
  @HttpCode(201)
  @ApiOkResponse({ description: 'The captured snapshot with its bindings and graph (201)' })
  capture(@Body() body: CaptureSnapshotDto) {
    return this.service.capture(body?.label?.trim() || null, body?.actor);
  }
}
