import { Policies, RequirePolicy } from '@arbiter/auth';
import { Body, Controller, Get, HttpCode, Inject, Param, Post } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { parseVersion } from '../../shared';
import { CanaryService } from '../application/canary.service';
import { CanaryActorDto, CanaryRollbackDto, CanaryTargetsDto } from './dto';

/** Canary on the /api/v1/control-plane routes: `/api/v1/control-plane/canary/{workflow}…` (promote/rollback act on the newest rollout). */
@ApiTags('canary (control-plane)')
@Controller('api/v1/control-plane/canary/:workflow')
export class ControlPlaneCanaryController {
  constructor(@Inject(CanaryService) private readonly canary: CanaryService) {}

  @Post(':version/start')
  @RequirePolicy(Policies.Approver)
  @ApiCreatedResponse({ description: 'The rollout' })
  start(
    @Param('workflow') workflowName: string,
    @Param('version') version: string,
    @Body() body: CanaryTargetsDto = {},
  ) {
    return this.canary.start({ ...body, workflowName, version: parseVersion(version) });
  }

  @Get()
  @RequirePolicy(Policies.Viewer)
  @ApiOkResponse({ description: '{ workflowName, activeVersion, canary: rollout | null, rollouts }' })
  state(@Param('workflow') workflowName: string) {
    return this.canary.state(workflowName);
  }

  @Post('promote')
  @RequirePolicy(Policies.Approver)
  @HttpCode(200)
  promote(@Param('workflow') workflowName: string, @Body() body: CanaryActorDto = {}) {
    return this.canary.promote({ workflowName }, body?.actor);
  }

  @Post('rollback')
  @RequirePolicy(Policies.Approver)
  @HttpCode(200)
  rollback(@Param('workflow') workflowName: string, @Body() body: CanaryRollbackDto = {}) {
    return this.canary.rollback({ workflowName }, body?.reason, body?.actor);
  }
}
