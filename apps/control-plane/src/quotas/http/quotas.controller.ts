import { AppError } from '@arbiter/platform';
import { Body, Controller, Get, HttpCode, Inject, Param, Post, Put } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { QuotasService } from '../application/quotas.service';
import { pickOverrides } from '../domain/tiers';
import { TenantQuotaLimitsDto, UpgradeTierDto } from './dto';
import { QuotaAccess } from './quota-access';

const TENANT_QUOTA =
  '{ tenantId, tier, maxConcurrentExecutions, maxEvaluationsPerMinute, maxEvaluationsPerDay, preset, overrides, updatedAt, updatedBy }';

/** A JSON array, string or null body passes class-validator untouched: refuse it before anything is written. */
function objectBody<T>(body: T): T {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw AppError.validation([{ field: 'body', message: 'must be a JSON object' }]);
  return body;
}

/** Spec 1 quota routes. */
@ApiTags('quotas')
@ApiBearerAuth()
@Controller('api/v1/tenants/:tenantId/quotas')
export class QuotasController {
  constructor(
    @Inject(QuotasService) private readonly quotas: QuotasService,
    @Inject(QuotaAccess) private readonly access: QuotaAccess,
  ) {}

  @Get('usage')
  @ApiOkResponse({
    description:
      '{ tenantId, tier, evaluations: { minute: { used, limit, remaining, resetsAt }, day: {…} }, concurrency: { inUse, leased, limit } }',
  })
  usage(@Param('tenantId') tenantId: string) {
    return this.quotas.usage(this.access.assert(tenantId));
  }

  @Get('limits')
  @ApiOkResponse({ description: TENANT_QUOTA })
  limits(@Param('tenantId') tenantId: string) {
    return this.quotas.limits(this.access.assert(tenantId));
  }

  @Put('limits')
  @ApiOkResponse({ description: `${TENANT_QUOTA} (Admin role)` })
  setLimits(@Param('tenantId') tenantId: string, @Body() body: TenantQuotaLimitsDto) {
    const tenant = this.access.assert(tenantId, { admin: true });
    return this.quotas.setLimits(tenant, pickOverrides({ ...objectBody(body) }));
  }

  @Post('upgrade')
  @HttpCode(200)
  @ApiOkResponse({ description: `${TENANT_QUOTA} (Admin role; the overrides are cleared)` })
  upgrade(@Param('tenantId') tenantId: string, @Body() body: UpgradeTierDto) {
    const tenant = this.access.assert(tenantId, { admin: true });
    return this.quotas.upgrade(tenant, objectBody(body).tier);
  }
}
