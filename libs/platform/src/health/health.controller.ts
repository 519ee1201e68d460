import { Controller, Get, Res } from '@nestjs/common';
import {
  ApiExtraModels,
  ApiOkResponse,
  ApiOperation,
  ApiServiceUnavailableResponse,
  ApiTags,
} from '@nestjs/swagger';
import { ApiPublic } from '../openapi/api-decorators';
import { DependencyStatusView, HealthReportView, LivenessView } from './health.dto';
import { HealthService } from './health.service';

interface Reply {
  status(code: number): Reply;
  send(body: unknown): void;
}

/**
 * `/health`: readiness: 200 when the database and the bus answer, 503 with the failing dependency
 * otherwise. `/health/live`: liveness: 200 while the process serves HTTP (a NATS outage must not get
 * pods restarted).
 */
@ApiTags('health')
@ApiPublic()
@ApiExtraModels(DependencyStatusView)
@Controller('health')
export class HealthController {
  constructor(private readonly health: HealthService) {}

  @Get()
  @ApiOperation({ summary: 'Readiness: 200 when the database and the bus answer' })
  @ApiOkResponse({ type: HealthReportView })
  @ApiServiceUnavailableResponse({
    description: 'A dependency is down (the report names it)',
    type: HealthReportView,
  })
  async readiness(@Res() reply: Reply): Promise<void> {
    const report = await this.health.report();
    reply.status(report.status === 'ok' ? 200 : 503).send(report);
  }

  @Get('live')
  @ApiOperation({ summary: 'Liveness: 200 while the process serves HTTP' })
  @ApiOkResponse({ type: LivenessView })
  liveness() {
    return { status: 'ok' };
  }
}
