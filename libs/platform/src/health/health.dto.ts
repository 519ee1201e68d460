import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

/** One dependency's state in the readiness report. */
export class DependencyStatusView {
  @ApiProperty({ enum: ['up', 'down'] })
  status!: 'up' | 'down';
}

/** `GET /health`: the service's readiness. */
export class HealthReportView {
  @ApiProperty({ enum: ['ok', 'degraded'] })
  status!: 'ok' | 'degraded';

  @ApiProperty({ example: 'control-plane' })
  service!: string;

  @ApiProperty({
    description: 'One entry per dependency (database, bus, and any the service adds), with its details.',
    type: 'object',
    additionalProperties: { $ref: '#/components/schemas/DependencyStatusView' },
  })
  checks!: Record<string, DependencyStatusView>;

  @ApiProperty()
  uptimeSeconds!: number;

  @ApiProperty({ format: 'date-time' })
  timestamp!: string;
}

/** `GET /health/live`: the process serves HTTP. */
export class LivenessView {
  @ApiProperty({ enum: ['ok'] })
  status!: 'ok';

  @ApiPropertyOptional()
  detail?: string;
}
