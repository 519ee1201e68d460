import { Policies, RequirePolicy } from '@arbiter/auth';
import { ApiErrorFamily, ApiErrors, readPage } from '@arbiter/platform';
import { Body, Controller, Get, HttpCode, Inject, Param, Post, Query } from '@nestjs/common';
import {
  ApiBody,
  ApiCreatedResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiQuery,
  ApiTags,
} from '@nestjs/swagger';
import { CatalogErrorFamily } from '../application/errors';
import { UiCatalogService } from '../application/ui-catalog.service';
import { CaptureSnapshotDto } from './dto';
import {
  ApiCatalogView,
  CatalogGraphView,
  EndpointBindingsView,
  SnapshotPageView,
  SnapshotView,
} from './views';

const SNAPSHOT_PAGE = { defaultSize: 20, maxSize: 100 };

@ApiTags('ui catalog')
@ApiErrorFamily(CatalogErrorFamily)
@Controller('api/v1/ui-catalog')
export class UiCatalogController {
  constructor(@Inject(UiCatalogService) private readonly service: UiCatalogService) {}

  @Get('apis')
  @RequirePolicy(Policies.Viewer)
  @ApiOperation({
    summary: 'The control plane HTTP API',
    description: 'Every route with its method, path template, summary, tags and required policies.',
  })
  @ApiOkResponse({ description: 'The API catalog', type: ApiCatalogView })
  apis() {
    return this.service.apis();
  }

  @Get('bindings')
  @RequirePolicy(Policies.Viewer)
  @ApiOperation({
    summary: 'Endpoint-to-rule bindings',
    description:
      'One binding per workflow of the tenant with an active version: its execute endpoint and the rules, ' +
      'decision tables and sub flows it uses.',
  })
  @ApiOkResponse({ description: 'The bindings', type: EndpointBindingsView })
  bindings() {
    return this.service.bindings();
  }

  @Get('graph')
  @RequirePolicy(Policies.Viewer)
  @ApiOperation({
    summary: 'Binding graph',
    description: 'apis → workflows → rules, decision tables and sub flows, each node and edge once.',
  })
  @ApiOkResponse({ description: 'The graph', type: CatalogGraphView })
  graph() {
    return this.service.graph();
  }

  @Get('snapshots')
  @RequirePolicy(Policies.Viewer)
  @ApiOperation({ summary: 'List captured snapshots', description: 'Newest first, without their content.' })
  @ApiQuery({
    name: 'page',
    required: false,
    description: 'Page number (default 1).',
    schema: { type: 'integer', minimum: 1, default: 1 },
  })
  @ApiQuery({
    name: 'pageSize',
    required: false,
    description: `Page size (default ${SNAPSHOT_PAGE.defaultSize}, at most ${SNAPSHOT_PAGE.maxSize}).`,
    schema: {
      type: 'integer',
      minimum: 1,
      maximum: SNAPSHOT_PAGE.maxSize,
      default: SNAPSHOT_PAGE.defaultSize,
    },
  })
  @ApiOkResponse({ description: 'A page of snapshots', type: SnapshotPageView })
  @ApiErrors(400)
  async snapshots(@Query() query: Record<string, string>) {
    const { page, pageSize, offset } = readPage(query, SNAPSHOT_PAGE);
    const { items, total } = await this.service.snapshots(pageSize, offset);
    return { items, total, page, pageSize };
  }

  @Get('snapshots/:id')
  @RequirePolicy(Policies.Viewer)
  @ApiOperation({ summary: 'One snapshot', description: 'With its bindings and graph.' })
  @ApiParam({ name: 'id', description: 'The snapshot (a UUID).', schema: { type: 'string', format: 'uuid' } })
  @ApiOkResponse({ description: 'The snapshot', type: SnapshotView })
  @ApiErrors(404)
  snapshot(@Param('id') id: string) {
    return this.service.snapshot(id);
  }

  @Post('snapshots/capture')
  @RequirePolicy(Policies.Admin)
  @HttpCode(201)
  @ApiOperation({
    summary: 'Capture a snapshot',
    description: 'Persists the current bindings and graph of the tenant.',
  })
  @ApiBody({ type: CaptureSnapshotDto, required: false })
  @ApiCreatedResponse({
    description: 'The captured snapshot with its bindings and graph',
    type: SnapshotView,
  })
  capture(@Body() body: CaptureSnapshotDto) {
    return this.service.capture(body?.label?.trim() || null, body?.actor);
  }
}
