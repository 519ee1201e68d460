import { ApiErrorFamily, ApiErrors } from '@arbiter/platform';
import {
  Body,
  Controller,
  Delete,
  Get,
  Header,
  HttpCode,
  Inject,
  Param,
  Post,
  Put,
  Res,
} from '@nestjs/common';
import {
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiTags,
} from '@nestjs/swagger';
import { EventWindowConfigService } from '../application/event-window-config.service';
import { LiveWindowsService } from '../application/live-windows.service';
import { EventWindowSimulationService } from '../application/simulation.service';
import { EventWindowErrorFamily } from '../errors';
import { EventBatchBody, EventWindowConfigBody } from './dto';
import { BatchResultView, EventWindowConfigView, KeyWindowView } from './views';

const ID_PARAM = {
  name: 'id',
  description: "Configuration id (letters, digits, '_' and '-'; chosen by the caller on PUT).",
  example: 'failed-logins',
};

@ApiTags('event windows')
@ApiErrorFamily(EventWindowErrorFamily)
@Controller('api/v1/rule-engine/cep')
export class EventWindowsController {
  constructor(
    @Inject(EventWindowConfigService) private readonly configs: EventWindowConfigService,
    @Inject(EventWindowSimulationService) private readonly simulation: EventWindowSimulationService,
    @Inject(LiveWindowsService) private readonly live: LiveWindowsService,
  ) {}

  @Get()
  @ApiOperation({ summary: "List the tenant's event-window configurations, ordered by name" })
  @ApiOkResponse({ type: [EventWindowConfigView] })
  list() {
    return this.configs.list();
  }

  @Get(':id')
  @ApiOperation({ summary: "One configuration (404 for an unknown id and for another tenant's)" })
  @ApiParam(ID_PARAM)
  @ApiOkResponse({ type: EventWindowConfigView })
  @ApiErrors(400, 404)
  get(@Param('id') id: string) {
    return this.configs.get(id);
  }

  @Put(':id')
  @ApiOperation({
    summary: 'Save a configuration: create it (201) or replace it (200, `Version` + 1)',
    description:
      'Durations are ISO 8601 or .NET `TimeSpan` text (400 `INVALID_DURATION` naming the field); `WindowSize` must ' +
      'be > 0 (400 `INVALID_WINDOW_SIZE`) and ≤ `TimeToLive` (400 `WINDOW_LONGER_THAN_TTL`). Publishes ' +
      '`arbiter.event-window.changed`.',
  })
  @ApiParam(ID_PARAM)
  @ApiOkResponse({ type: EventWindowConfigView, description: 'Replaced.' })
  @ApiCreatedResponse({ type: EventWindowConfigView, description: 'Created.' })
  @ApiErrors(400)
  async save(
    @Param('id') id: string,
    @Body() body: EventWindowConfigBody,
    @Res({ passthrough: true }) reply: { status(code: number): unknown },
  ) {
    const { created, view } = await this.configs.save(id, body);
    reply.status(created ? 201 : 200);
    return view;
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiOperation({ summary: 'Delete a configuration (its live windows are dropped on every replica)' })
  @ApiParam(ID_PARAM)
  @ApiNoContentResponse({ description: 'Deleted.' })
  @ApiErrors(400, 404)
  async delete(@Param('id') id: string) {
    await this.configs.delete(id);
  }

  @Post(':id/simulate')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Run a batch of events through a fresh window of the configuration; nothing is stored',
    description:
      'Per event: `Status` (`Accepted` or `Late`) and, with `EmitMode` `OnUpdate`, the window it fell into with ' +
      'its aggregates and contents (the most recent `MaxContents` events, default 3, at most ' +
      '`EventWindows:MaxContents`; `Truncated` counts the others). ' +
      '`Closed` lists the tumbling and session windows closed during the batch (and by `Now`). More than ' +
      '`EventWindows:MaxBatchEvents` events (default 50,000) is a 413 `EVENT_BATCH_TOO_LARGE`; a body past ' +
      '`Http:BodyLimitBytes` is a 413 before it is read.',
  })
  @ApiParam(ID_PARAM)
  @ApiOkResponse({ type: BatchResultView })
  @ApiErrors(400, 404)
  @Header('content-type', 'application/json; charset=utf-8') // the service writes the JSON bytes itself
  simulate(@Param('id') id: string, @Body() body: EventBatchBody) {
    return this.simulation.simulate(id, body);
  }

  @Post(':id/events')
  @HttpCode(200)
  @ApiOperation({
    summary: "Ingest events into the configuration's live windows",
    description:
      'Keys of partitions this replica holds are applied at once (their windows are in the answer); the others ' +
      'are forwarded on NATS to the replica holding them (`Forwarded`). Every event is kept in the JetStream ' +
      'stream, from which a restarted replica rebuilds its windows. Same batch rules as simulate.',
  })
  @ApiParam(ID_PARAM)
  @ApiOkResponse({ type: BatchResultView })
  @ApiErrors(400, 404)
  ingest(@Param('id') id: string, @Body() body: EventBatchBody) {
    return this.live.ingest(id, body.Events);
  }

  @Get(':id/keys/:key/window')
  @ApiOperation({
    summary: "A key's current live window and its aggregates as rule input facts",
    description:
      'Sliding: the events of (now − size, now]; tumbling: the open bucket; session: the open session. `Facts` ' +
      'is what a rule or decision table reads: `window.count`, `window.sum`, … . Any replica answers: a key of a ' +
      'partition held by another replica is read from it over NATS request/reply (`Owned` false); 503 ' +
      '`WINDOW_PARTITION_UNAVAILABLE` when that replica does not answer within `EventWindows:ReadTimeoutMs`, or ' +
      'while the partition is still being rebuilt from the stream after a start.',
  })
  @ApiParam(ID_PARAM)
  @ApiParam({ name: 'key', description: 'Correlation key.', example: 'user-42' })
  @ApiOkResponse({ type: KeyWindowView })
  @ApiErrors(400, 404, 503)
  keyWindow(@Param('id') id: string, @Param('key') key: string) {
    return this.live.keyWindow(id, key);
  }
}
