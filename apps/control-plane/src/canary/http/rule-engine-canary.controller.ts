import { Policies, RequirePolicy } from '@arbiter/auth';
import { ApiErrorFamily, ApiErrors, RequireLicenseFeature } from '@arbiter/platform';
import { Body, Controller, Get, HttpCode, Inject, Param, Post } from '@nestjs/common';
import { ApiBody, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { CanaryErrorFamily } from '../application/canary-errors';
import { CanaryService } from '../application/canary.service';
import { RolloutPromoteDto, RolloutRollbackDto, RuleEngineCanaryStartDto } from './dto';
import {
  CanaryPromotionView,
  CanaryRollbackView,
  CanaryRolloutMetricsView,
  CanaryRolloutProgressView,
} from './views';

/** Canary on the /api/v1/rule-engine routes: `/api/v1/rule-engine/rulesets/{workflowName}/canary…`. */
@ApiTags('canary')
@ApiErrorFamily(CanaryErrorFamily)
@ApiParam({ name: 'workflowName', description: 'The workflow name.', example: 'loan-approval' })
@RequireLicenseFeature('pdf.canary')
@Controller('api/v1/rule-engine/rulesets/:workflowName')
export class RuleEngineCanaryController {
  constructor(@Inject(CanaryService) private readonly canary: CanaryService) {}

  @Post('canary-start')
  @RequirePolicy(Policies.Approver)
  @ApiOperation({
    summary: 'Start a canary rollout (with its progress)',
    description:
      'The rule-engine form of `POST /api/v1/canary`: the answer carries `progress` ' +
      '`{ percentage, tenantsAffected, totalTenants }`.',
  })
  @ApiBody({
    type: RuleEngineCanaryStartDto,
    examples: {
      percentage: { summary: '25 % of traffic', value: { version: 3, targetPercentage: 25, actor: 'alice' } },
    },
  })
  @ApiCreatedResponse({
    description: 'The rollout, Active, with its progress',
    type: CanaryRolloutProgressView,
  })
  @ApiErrors(404, 409)
  async start(@Param('workflowName') workflowName: string, @Body() body: RuleEngineCanaryStartDto) {
    const rollout = await this.canary.start({ ...body, workflowName });
    return { ...rollout, progress: await this.canary.progress(rollout) };
  }

  @Get('canary/:rolloutId')
  @RequirePolicy(Policies.Viewer)
  @ApiOperation({
    summary: 'Rollout metrics',
    description:
      'The rollout, its progress, and executions, errors and error rate of the active and the canary arm ' +
      '(from the execution audit).',
  })
  @ApiParam({
    name: 'rolloutId',
    description: 'The rollout (a UUID).',
    schema: { type: 'string', format: 'uuid' },
  })
  @ApiOkResponse({ description: 'The rollout metrics', type: CanaryRolloutMetricsView })
  @ApiErrors(400, 404)
  metrics(@Param('workflowName') workflowName: string, @Param('rolloutId') rolloutId: string) {
    return this.canary.metrics(workflowName, rolloutId);
  }

  @Post('canary/promote')
  @RequirePolicy(Policies.Approver)
  @HttpCode(200)
  @ApiOperation({
    summary: 'Promote a rollout of the workflow',
    description: 'Active → Promoted: the canary version becomes active for every tenant.',
  })
  @ApiBody({
    type: RolloutPromoteDto,
    examples: {
      promote: { value: { rolloutId: '0b6f1d4e-5c1a-4f0e-9d3b-2a7c8e9f1a20', actor: 'alice' } },
    },
  })
  @ApiOkResponse({ description: 'The promotion', type: CanaryPromotionView })
  @ApiErrors(404, 409)
  promote(@Param('workflowName') workflowName: string, @Body() body: RolloutPromoteDto) {
    return this.canary.promote({ workflowName, rolloutId: body.rolloutId }, body.actor);
  }

  @Post('canary/rollback')
  @RequirePolicy(Policies.Approver)
  @HttpCode(200)
  @ApiOperation({
    summary: 'Roll a rollout of the workflow back',
    description: 'Active → RolledBack: routing stops at once; a reason is required.',
  })
  @ApiBody({ type: RolloutRollbackDto })
  @ApiOkResponse({ description: 'The rollback', type: CanaryRollbackView })
  @ApiErrors(404, 409)
  rollback(@Param('workflowName') workflowName: string, @Body() body: RolloutRollbackDto) {
    return this.canary.rollback({ workflowName, rolloutId: body.rolloutId }, body.reason, body.actor);
  }
}
