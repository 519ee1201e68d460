import { Policies, RequirePolicy } from '@arbiter/auth';
import { Body, Controller, Get, HttpCode, Inject, Param, Post } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { CanaryService } from '../application/canary.service';
import { CanaryActorDto, CanaryRollbackDto, StartCanaryDto } from './dto';

/** Canary on the /api/v1/canary routes. */
@ApiTags('canary')
@Controller('api/v1/canary')
export class CanaryController {
  constructor(@Inject(CanaryService) private readonly canary: CanaryService) {}

  @Post()
  @RequirePolicy(Policies.Approver)
  @ApiCreatedResponse({ description: 'The rollout' })
  start(@Body() body: StartCanaryDto) {
    return this.canary.start(body);
  }

  @Get()
  @RequirePolicy(Policies.Viewer)
  @ApiOkResponse({ description: 'Array of rollouts, newest first' })
  list() {
    return this.canary.list();
  }

  @Post(':rolloutId/promote')
  @RequirePolicy(Policies.Approver)
  @HttpCode(200)
  @ApiOkResponse({
    description: '{ rolloutId, status, promotedAt, workflowName, version, previousActiveVersion }',
  })
  promote(@Param('rolloutId') rolloutId: string, @Body() body: CanaryActorDto = {}) {
    return this.canary.promote({ rolloutId }, body?.actor);
  }

  @Post(':rolloutId/rollback')
  @RequirePolicy(Policies.Approver)
  @HttpCode(200)
  @ApiOkResponse({ description: '{ rolloutId, status, rolledBackAt, reason, workflowName, version }' })
  rollback(@Param('rolloutId') rolloutId: string, @Body() body: CanaryRollbackDto = {}) {
    return this.canary.rollback({ rolloutId }, body?.reason, body?.actor);
  }
}
