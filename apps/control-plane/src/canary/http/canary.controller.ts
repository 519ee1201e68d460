import { Policies, RequirePolicy } from '@arbiter/auth';
import { ApiErrorFamily, ApiErrors, RequireLicenseFeature } from '@arbiter/platform';
import { Body, Controller, Get, HttpCode, Inject, Param, Post } from '@nestjs/common';
import { ApiBody, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { CanaryErrorFamily } from '../application/canary-errors';
import { CanaryService } from '../application/canary.service';
import { CanaryActorDto, CanaryRollbackDto, StartCanaryDto } from './dto';
import { CanaryPromotionView, CanaryRollbackView, CanaryRolloutView } from './views';

const ROLLOUT_ID_PARAM = {
  name: 'rolloutId',
  description: 'The rollout (a UUID).',
  schema: { type: 'string', format: 'uuid' },
} as const;

/** Canary on the /api/v1/canary routes. */
@ApiTags('canary')
@ApiErrorFamily(CanaryErrorFamily)
@RequireLicenseFeature('pdf.canary')
@Controller('api/v1/canary')
export class CanaryController {
  constructor(@Inject(CanaryService) private readonly canary: CanaryService) {}

  @Post()
  @RequirePolicy(Policies.Approver)
  @ApiOperation({
    summary: 'Start a canary rollout',
    description:
      'Rolls a version out to named tenants or a share of traffic (`targetPercentage` or `targetTenantIds`, ' +
      'not both; 1 % when neither is given). The version must exist and must not be the active one; one ' +
      'rollout per workflow is Active at a time. 404 `CANARY_DISABLED` when `RuleControlPlane:EnableCanary` is off.',
  })
  @ApiBody({
    type: StartCanaryDto,
    examples: {
      percentage: {
        summary: '10 % of traffic',
        value: { workflowName: 'loan-approval', version: 3, targetPercentage: 10 },
      },
      tenants: {
        summary: 'Named tenants',
        value: { workflowName: 'loan-approval', version: 3, targetTenantIds: ['globex', 'initech'] },
      },
    },
  })
  @ApiCreatedResponse({ description: 'The rollout, Active', type: CanaryRolloutView })
  @ApiErrors(404, 409)
  start(@Body() body: StartCanaryDto) {
    return this.canary.start(body);
  }

  @Get()
  @RequirePolicy(Policies.Viewer)
  @ApiOperation({
    summary: 'List canary rollouts',
    description: 'Every rollout of the tenant, newest first.',
  })
  @ApiOkResponse({ description: 'The rollouts, newest first', type: CanaryRolloutView, isArray: true })
  @ApiErrors(404)
  list() {
    return this.canary.list();
  }

  @Post(':rolloutId/promote')
  @RequirePolicy(Policies.Approver)
  @HttpCode(200)
  @ApiOperation({
    summary: 'Promote a canary rollout',
    description:
      'Active → Promoted: the canary version becomes active for every tenant (the previous active version ' +
      'is archived) and routing stops.',
  })
  @ApiParam(ROLLOUT_ID_PARAM)
  @ApiBody({ type: CanaryActorDto, required: false, examples: { actor: { value: { actor: 'alice' } } } })
  @ApiOkResponse({ description: 'The promotion', type: CanaryPromotionView })
  @ApiErrors(404, 409)
  promote(@Param('rolloutId') rolloutId: string, @Body() body: CanaryActorDto = {}) {
    return this.canary.promote({ rolloutId }, body?.actor);
  }

  @Post(':rolloutId/rollback')
  @RequirePolicy(Policies.Approver)
  @HttpCode(200)
  @ApiOperation({
    summary: 'Roll a canary rollout back',
    description:
      'Active → RolledBack: routing stops at once and every tenant runs the active version again. A reason ' +
      'is required (400 `ROLLBACK_REASON_REQUIRED`).',
  })
  @ApiParam(ROLLOUT_ID_PARAM)
  @ApiBody({ type: CanaryRollbackDto })
  @ApiOkResponse({ description: 'The rollback', type: CanaryRollbackView })
  @ApiErrors(404, 409)
  rollback(@Param('rolloutId') rolloutId: string, @Body() body: CanaryRollbackDto = {}) {
    return this.canary.rollback({ rolloutId }, body?.reason, body?.actor);
  }
}
