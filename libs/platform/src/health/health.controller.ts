import { Controller, Get, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
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
@ApiExcludeController()
@Controller('health')
export class HealthController {
  constructor(private readonly health: HealthService) {}

  @Get()
  async readiness(@Res() reply: Reply): Promise<void> {
    const report = await this.health.report();
    reply.status(report.status === 'ok' ? 200 : 503).send(report);
  }

  @Get('live')
  liveness() {
    return { status: 'ok' };
  }
}
