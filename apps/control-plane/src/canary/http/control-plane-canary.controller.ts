import { Policies, RequirePolicy } from '@arbiter/auth';
import { ApiErrorFamily, ApiErrors, RequireLicenseFeature } from '@arbiter/platform';
import { Body, Controller, Get, HttpCode, Inject, Param, Post } from '@nestjs/common';
import {
  ApiBody,
  ApiCreatedResponse,
  ApiExtraModels,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiTags,
} from '@nestjs/swagger';
import { parseVersion } from '../../shared';
import { CanaryErrorFamily } from '../application/canary-errors';
import { CanaryService } from '../application/canary.service';
import { CanaryActorDto, CanaryRollbackDto, CanaryTargetsDto } from './dto';
import { CanaryPromotionView, CanaryRollbackView, CanaryRolloutView, CanaryStateView } from './views';

const WORKFLOW_PARAM = { name: 'workflow', description: 'The workflow name.', example: 'loan-approval' };

/** Canary on the /api/v1/control-plane routes: `/api/v1/control-plane/canary/{workflow}…` (promote/rollback act on the newest rollout). */
@ApiTags('canary')
@ApiErrorFamily(CanaryErrorFamily)
@ApiExtraModels(CanaryRolloutView)
@ApiParam(WORKFLOW_PARAM)
@RequireLicenseFeature('pdf.canary')
@Controller('api/v1/control-plane/canary/:workflow')
export class ControlPlaneCanaryController {
  constructor(@Inject(CanaryService) private readonly canary: CanaryService) {}

  @Post(':version/start')
  @RequirePolicy(Policies.Approver)
  @ApiOperation({
    summary: "Start a canary rollout of a workflow's version",
    description:
      'The control-plane form of `POST /api/v1/canary`: the workflow and version come from the path, the ' +
      'targets (optional) from the body.',
  })
  @ApiParam({
    name: 'version',
    description: 'The version to roll out (a positive integer).',
    schema: { type: 'integer', minimum: 1 },
  })
  @ApiBody({ type: CanaryTargetsDto, required: false })
  @ApiCreatedResponse({ description: 'The rollout, Active', type: CanaryRolloutView })
  @ApiErrors(404, 409)
  start(
    @Param('workflow') workflowName: string,
    @Param('version') version: string,
    @Body() body: CanaryTargetsDto = {},
  ) {
    return this.canary.start({ ...body, workflowName, version: parseVersion(version) });
  }

  @Get()
  @RequirePolicy(Policies.Viewer)
  @ApiOperation({
    summary: 'Canary state of a workflow',
    description: 'The active version, the Active rollout (or null) and every rollout of the workflow.',
  })
  @ApiOkResponse({ description: 'The canary state', type: CanaryStateView })
  @ApiErrors(400, 404)
  state(@Param('workflow') workflowName: string) {
    return this.canary.state(workflowName);
  }

  @Post('promote')
  @RequirePolicy(Policies.Approver)
  @HttpCode(200)
  @ApiOperation({
    summary: "Promote the workflow's newest rollout",
    description: 'Active → Promoted for the newest rollout of the workflow (409 when it is not Active).',
  })
  @ApiBody({ type: CanaryActorDto, required: false })
  @ApiOkResponse({ description: 'The promotion', type: CanaryPromotionView })
  @ApiErrors(404, 409)
  promote(@Param('workflow') workflowName: string, @Body() body: CanaryActorDto = {}) {
    return this.canary.promote({ workflowName }, body?.actor);
  }

  @Post('rollback')
  @RequirePolicy(Policies.Approver)
  @HttpCode(200)
  @ApiOperation({
    summary: "Roll the workflow's newest rollout back",
    description: 'Active → RolledBack for the newest rollout of the workflow; a reason is required.',
  })
  @ApiBody({ type: CanaryRollbackDto })
  @ApiOkResponse({ description: 'The rollback', type: CanaryRollbackView })
  @ApiErrors(404, 409)
  rollback(@Param('workflow') workflowName: string, @Body() body: CanaryRollbackDto = {}) {
    return this.canary.rollback({ workflowName }, body?.reason, body?.actor);
  }
}
