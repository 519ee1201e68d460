import { Public } from '@arbiter/auth';
import { ApiErrorFamily, ApiErrors, AppError } from '@arbiter/platform';
import { ExperienceErrorFamily } from '../openapi';
import { Body, Controller, Get, HttpCode, Inject, Post, Query, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiQuery, ApiTags } from '@nestjs/swagger';
import { CommonErrorCodes } from '@arbiter/contracts';
/** An OpenAPI schema object, as `ApiOkResponse({ schema })` takes it. */
type SchemaObject = Record<string, any>;
import { Brain, PilContext, Principles } from './assist';
import {
  BrainDto,
  EvolveView,
  ExtractDto,
  ExtractView,
  FeedbackDto,
  FeedbackView,
  ImportDto,
  PilContextDto,
  RouteModelDto,
  RouteTaskDto,
  ShareDto,
} from './dto';
import { Evolve } from './evolve';
import { ExperienceGuard } from './experience.guard';
import { Extract } from './extract';
import { Insights } from './insights';
import { Feedback } from './judge';
import { Routing } from './routing';

const num = { type: 'number' };
const int = { type: 'integer' };
const str = { type: 'string' };
const nstr = { type: 'string', nullable: true };
const o = (properties: Record<string, unknown>, extra: Record<string, unknown> = {}): SchemaObject =>
  ({ type: 'object', properties, required: Object.keys(properties), ...extra }) as SchemaObject;
const tierCounts = o({ T0: int, T1: int, T2: int, T3: int });
/** Response schemas of the experience routes without a view class. */
const S = {
  stats: o({
    hitRate: num,
    interceptionRate: num,
    totalInterceptions: int,
    verdicts: o({ followed: int, ignored: int, irrelevant: int }),
    mistakesAvoided: int,
    velocityPerSession: o({ avg: num, min: num, max: num }),
    knowledge: tierCounts,
    timestamp: { type: 'string', format: 'date-time' },
  }),
  gates: o({
    ready: { type: 'boolean' },
    vectordb: o(
      { available: { type: 'boolean' }, healthy: { type: 'boolean' }, collections: int, vectorsIndexed: int },
      { additionalProperties: true },
    ),
    fileStore: o(
      { available: { type: 'boolean' }, healthy: { type: 'boolean' }, fileCount: int, diskUsageMb: num },
      { additionalProperties: true },
    ),
    judge: o({ queueLength: int, processingRate: num }),
    timestamp: { type: 'string', format: 'date-time' },
  }),
  graph: o({
    id: str,
    text: str,
    edges: {
      type: 'array',
      items: o({
        type: { type: 'string', enum: ['generalizes', 'relates-to', 'supersedes'] },
        targets: { type: 'array', items: o({ id: str, text: str }, { additionalProperties: true }) },
      }),
    },
  }),
  timeline: o({
    topic: str,
    events: {
      type: 'array',
      items: {
        type: 'object',
        required: ['timestamp', 'type', 'id', 'text'],
        properties: {
          timestamp: str,
          type: { type: 'string', enum: ['extracted', 'promoted', 'abstracted', 'supersedes'] },
          id: str,
          text: str,
          tier: nstr,
          verdict_distribution: { type: 'object', nullable: true, additionalProperties: { type: 'integer' } },
          from: nstr,
          to: nstr,
          reason: nstr,
          generalizesCount: { type: 'integer', nullable: true },
          supersedesId: nstr,
          principle: nstr,
        },
      },
    },
  }),
  routeModel: o({
    tier: { type: 'string', enum: ['fast', 'standard', 'deep'] },
    model: str,
    reasoningEffort: str,
    confidence: num,
    source: { type: 'string', enum: ['keyword', 'semantic', 'model'] },
    reasoning: str,
  }),
  routeTask: o({
    workflow: str,
    reasoning: str,
    recommendedSkill: str,
    source: { type: 'string', enum: ['keyword', 'semantic', 'model'] },
    alternatives: { type: 'array', items: o({ workflow: str, confidence: num, reason: str }) },
  }),
  brain: o({ content: str, model: str, tokensUsed: int, cacheHit: { type: 'boolean' } }),
  principle: o({
    format: str,
    id: str,
    text: str,
    tier: str,
    confidence: num,
    sourceExamples: { type: 'array', items: str },
    tags: { type: 'array', items: str },
    exported: { type: 'boolean' },
    exportedAt: str,
  }),
  imported: o({
    id: str,
    text: str,
    tier: str,
    imported: { type: 'boolean' },
    mergedWithExisting: { type: 'boolean' },
  }),
  pilContext: o({
    classification: o({
      risk: { type: 'string', enum: ['low', 'medium', 'high'] },
      category: str,
      reason: str,
    }),
    suggestions: { type: 'array', items: o({ id: str, text: str, confidence: num, source: str }) },
    cacheHit: { type: 'boolean' },
    ttl: int,
  }),
};

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The experience service (spec 3 part C) under `/api/<name>` (unversioned; errors `{ error, code,
 * timestamp }`). The JWT guard is skipped (`Public`): `ExperienceGuard` applies `serverAuthToken` and
 * the rate limits. Controllers only translate; the application services decide.
 */
@ApiTags('experience')
@ApiBearerAuth()
@ApiErrorFamily(ExperienceErrorFamily)
@ApiErrors(401, 429, 503)
@Controller('api')
@Public()
@UseGuards(ExperienceGuard)
export class ExperienceController {
  constructor(
    @Inject(Feedback) private readonly feedbackService: Feedback,
    @Inject(Extract) private readonly extractService: Extract,
    @Inject(Evolve) private readonly evolveService: Evolve,
    @Inject(Insights) private readonly insights: Insights,
    @Inject(Routing) private readonly routing: Routing,
    @Inject(Brain) private readonly brainService: Brain,
    @Inject(Principles) private readonly principles: Principles,
    @Inject(PilContext) private readonly pil: PilContext,
  ) {}

  @Post('feedback')
  @HttpCode(200)
  @ApiOperation({ summary: 'A verdict on one suggestion (pointId and collection from its text)' })
  @ApiOkResponse({ type: FeedbackView })
  @ApiErrors(404)
  feedback(@Body() dto: FeedbackDto) {
    return this.feedbackService.execute(dto);
  }

  @Post('extract')
  @HttpCode(200)
  @ApiOperation({ summary: 'Lessons from a transcript (each starts in T3)' })
  @ApiOkResponse({ type: ExtractView })
  extract(@Body() dto: ExtractDto) {
    return this.extractService.execute(dto);
  }

  @Post('evolve')
  @HttpCode(200)
  @ApiOperation({
    summary: 'One evolution cycle: archive, promote, abstract (idempotent, one replica at a time)',
  })
  @ApiOkResponse({ type: EvolveView })
  evolve() {
    return this.evolveService.execute();
  }

  @Get('stats')
  @ApiOperation({ summary: 'Interception and verdict metrics, knowledge per tier' })
  @ApiOkResponse({ schema: S.stats })
  stats() {
    return this.insights.stats();
  }

  @Get('gates')
  @ApiOperation({
    summary: 'Readiness of the stores and the judge; `vectordb.engine` names the vector search in use',
  })
  @ApiOkResponse({ schema: S.gates })
  gates() {
    return this.insights.gates();
  }

  @Get('graph')
  @ApiOperation({ summary: 'Edges of one entry' })
  @ApiOkResponse({ schema: S.graph })
  @ApiErrors(404)
  @ApiQuery({ name: 'id', required: true })
  @ApiQuery({
    name: 'types',
    required: false,
    description: 'Comma-separated: generalizes, relates-to, supersedes',
  })
  graph(@Query('id') id?: string, @Query('types') types?: string) {
    if (typeof id !== 'string' || !UUID.test(id)) {
      throw AppError.badRequest(CommonErrorCodes.ValidationFailed, '`id` is required and must be a UUID');
    }
    if (types !== undefined && typeof types !== 'string') {
      throw AppError.badRequest(CommonErrorCodes.ValidationFailed, '`types` must be given once');
    }
    return this.insights.graph(id.toLowerCase(), types);
  }

  @Get('timeline')
  @ApiOperation({ summary: 'Timeline events about a topic, newest first' })
  @ApiOkResponse({ schema: S.timeline })
  @ApiQuery({ name: 'topic', required: true })
  @ApiQuery({ name: 'limit', required: false, description: '1..200, default 20' })
  timeline(@Query('topic') topic?: string, @Query('limit') limit?: string) {
    if (typeof topic !== 'string' || !topic.trim() || topic.length > 500) {
      throw AppError.badRequest(
        CommonErrorCodes.ValidationFailed,
        '`topic` is required (at most 500 characters)',
      );
    }
    const n = limit === undefined ? 20 : Number(limit);
    if (!Number.isInteger(n) || n < 1 || n > 200) {
      throw AppError.badRequest(
        CommonErrorCodes.ValidationFailed,
        '`limit` must be an integer from 1 to 200',
      );
    }
    return this.insights.timeline(topic, n);
  }

  @Post('route-model')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Model tier for a task: keyword, then past T2 tasks, then the model on low confidence',
  })
  @ApiOkResponse({ schema: S.routeModel })
  routeModel(@Body() dto: RouteModelDto) {
    return this.routing.routeModel(dto);
  }

  @Post('route-task')
  @HttpCode(200)
  @ApiOperation({ summary: 'Workflow and skill for a task, same three layers' })
  @ApiOkResponse({ schema: S.routeTask })
  routeTask(@Body() dto: RouteTaskDto) {
    return this.routing.routeTask(dto);
  }

  @Post('brain')
  @HttpCode(200)
  @ApiOperation({ summary: 'Model proxy (cached); heuristic answer from the store without a model' })
  @ApiOkResponse({ schema: S.brain })
  brain(@Body() dto: BrainDto) {
    return this.brainService.execute(dto);
  }

  @Post('principles/share')
  @HttpCode(200)
  @ApiOperation({ summary: 'A principle as portable JSON (also written to the file store)' })
  @ApiOkResponse({ schema: S.principle })
  @ApiErrors(404)
  share(@Body() dto: ShareDto) {
    return this.principles.share(dto);
  }

  @Post('principles/import')
  @HttpCode(200)
  @ApiOperation({ summary: 'Import a principle (starts in T3; a near-duplicate merges)' })
  @ApiOkResponse({ schema: S.imported })
  import(@Body() dto: ImportDto) {
    return this.principles.import(dto);
  }

  @Post('pil-context')
  @HttpCode(200)
  @ApiOperation({ summary: 'Risk classification and lessons for a tool call (LRU cache, 5 minutes)' })
  @ApiOkResponse({ schema: S.pilContext })
  pilContext(@Body() dto: PilContextDto) {
    return this.pil.execute(dto);
  }
}
