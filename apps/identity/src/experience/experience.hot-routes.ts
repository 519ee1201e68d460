import { Public } from '@arbiter/auth';
import {
  createValidationPipe,
  experienceEnvelope,
  HotRouteRequest,
  registerHotRoute,
} from '@arbiter/platform';
import { Inject, Injectable, OnApplicationBootstrap, Type } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiAcceptedResponse, ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiErrorFamily, ApiErrors } from '@arbiter/platform';
import { ExperienceErrorFamily } from '../openapi';
import { InterceptDto, InterceptView, JudgeJobView, PostToolDto } from './dto';
import { ExperienceDoor } from './experience.guard';
import { Intercept } from './intercept';
import { PostTool } from './judge';

/**
 * `POST /api/intercept` (before every tool call) and `POST /api/posttool` (after it): hot routes
 * (`registerHotRoute`: a fast path in front of Fastify for plain JSON requests, a Fastify route for the
 * rest), without Nest's per-request pipeline. Same semantics as the Nest routes: the experience door
 * (bearer token, rate limit by client address, 401 / 429 + `Retry-After`), the platform's validation pipe
 * on the same DTOs (the same 400 bodies), the experience error envelope, the same answers.
 */
@Injectable()
export class ExperienceHotRoutes implements OnApplicationBootstrap {
  private readonly pipe = createValidationPipe();

  constructor(
    @Inject(HttpAdapterHost) private readonly adapterHost: HttpAdapterHost,
    @Inject(ExperienceDoor) private readonly door: ExperienceDoor,
    @Inject(Intercept) private readonly intercept: Intercept,
    @Inject(PostTool) private readonly postTool: PostTool,
  ) {}

  onApplicationBootstrap() {
    const adapter = this.adapterHost.httpAdapter;
    registerHotRoute(adapter, {
      method: 'POST',
      url: '/api/intercept',
      envelope: experienceEnvelope,
      handle: async (request) => this.intercept.execute(await this.admitted(request, InterceptDto)),
    });
    registerHotRoute(adapter, {
      method: 'POST',
      url: '/api/posttool',
      envelope: experienceEnvelope,
      status: 202,
      handle: async (request) => this.postTool.execute(await this.admitted(request, PostToolDto)),
    });
  }

  /** The door first (as the guard runs before the pipe), then the body validated into its DTO. */
  private async admitted<T>(request: HotRouteRequest, dto: Type<T>): Promise<T> {
    await this.door.admit(request);
    return (await this.pipe.transform(request.body, { type: 'body', metatype: dto })) as T;
  }
}

/**
 * Documentation only: `POST /api/intercept` and `POST /api/posttool` are served in front of Nest by
 * `ExperienceHotRoutes`. This controller is never routed and its methods never called; it is listed in
 * `openApi.unroutedControllers` (src/service.ts) so the operations are in the OpenAPI document.
 */
@ApiTags('experience')
@ApiBearerAuth()
@ApiErrorFamily(ExperienceErrorFamily)
@ApiErrors(401, 429, 503)
@Controller('api')
@Public()
export class ExperienceHotRouteDocumentation {
  @Post('intercept')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'experienceInterceptCall',
    summary: 'Lessons for a tool call, before it runs (no model call on this path)',
  })
  @ApiOkResponse({ type: InterceptView })
  interceptCall(@Body() _dto: InterceptDto): InterceptView {
    throw new Error('Documentation only: ExperienceHotRoutes serves POST /api/intercept');
  }

  @Post('posttool')
  @HttpCode(202)
  @ApiOperation({
    operationId: 'experiencePosttool',
    summary: 'A tool outcome, queued durably; the verdict judge runs asynchronously',
  })
  @ApiAcceptedResponse({ type: JudgeJobView })
  posttool(@Body() _dto: PostToolDto): JudgeJobView {
    throw new Error('Documentation only: ExperienceHotRoutes serves POST /api/posttool');
  }
}
