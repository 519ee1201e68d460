import { Policies, RequirePolicy } from '@arbiter/auth';
import { Body, Controller, Get, HttpCode, Inject, Param, Post } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { CanaryService } from '../application/canary.service';
import { RolloutPromoteDto, RolloutRollbackDto, RuleEngineCanaryStartDto } from './dto';

/** Canary on the /api/v1/rule-engine routes: `/api/v1/rule-engine/rulesets/{workflowName}/canary…`. */
@ApiTags('canary (rule-engine)')
@Controller('api/v1/rule-engine/rulesets/:workflowName')
export class RuleEngineCanaryController {
  constructor(@Inject(CanaryService) private readonly canary: CanaryService) {}

  @Post('canary-start')
  @RequirePolicy(Policies.Approver)
  @ApiCreatedResponse({
    description: 'The rollout with progress { percentage, tenantsAffected, totalTenants }',
  })
  async start(@Param('workflowName') workflowName: string, @Body() body: RuleEngineCanaryStartDto) {
    const rollout = await this.canary.start({ ...body, workflowName });
    return { ...rollout, progress: await this.canary.progress(rollout) };
  }

  @Get('canary/:rolloutId')
  @RequirePolicy(Policies.Viewer)
  @ApiOkResponse({
    description:
      'Rollout metrics: the rollout, progress, arms [{ arm, version, executions, errors, errorRate }]',
  })
  metrics(@Param('workflowName') workflowName: string, @Param('rolloutId') rolloutId: string) {
    return this.canary.metrics(workflowName, rolloutId);
  }

  @Post('canary/promote')
  @RequirePolicy(Policies.Approver)
  @HttpCode(200)
  promote(@Param('workflowName') workflowName: string, @Body() body: RolloutPromoteDto) {
    return this.canary.promote({ workflowName, rolloutId: body.rolloutId }, body.actor);
  }

  @Post('canary/rollback')
  @RequirePolicy(Policies.Approver)
  @HttpCode(200)
  rollback(@Param('workflowName') workflowName: string, @Body() body: RolloutRollbackDto) {
    return this.canary.rollback({ workflowName, rolloutId: body.rolloutId }, body.reason, body.actor);
  }
}
