import { ApiErrorFamily, AppError } from '@arbiter/platform';
import { Body, Controller, Get, HttpCode, Inject, Param, Post, Put } from '@nestjs/common';
import { ApiBody, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { QuotaErrorFamily } from '../application/quota-errors';
import { QuotasService } from '../application/quotas.service';
import { pickOverrides } from '../domain/tiers';
import { TenantQuotaLimitsDto, UpgradeTierDto } from './dto';
import { QuotaAccess } from './quota-access';
import { QuotaUsageView, TenantQuotaView } from './views';

/** A JSON array, string or null body passes class-validator untouched: refuse it before anything is written. */
function objectBody<T>(body: T): T {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw AppError.validation([{ field: 'body', message: 'must be a JSON object' }]);
  return body;
}

const ACCESS =
  "The path tenant must be the caller's tenant (403 `TENANT_MISMATCH`); an authenticated user is required.";

/** Spec 1 quota routes. */
@ApiTags('quotas')
@ApiErrorFamily(QuotaErrorFamily)
@ApiParam({ name: 'tenantId', description: "The caller's tenant.", example: 'acme' })
@Controller('api/v1/tenants/:tenantId/quotas')
export class QuotasController {
  constructor(
    @Inject(QuotasService) private readonly quotas: QuotasService,
    @Inject(QuotaAccess) private readonly access: QuotaAccess,
  ) {}

  @Get('usage')
  @ApiOperation({
    summary: "A tenant's quota usage",
    description: `Evaluations of the current UTC minute and day against the limits, and concurrency slots in use. ${ACCESS}`,
  })
  @ApiOkResponse({ description: 'The usage (QuotaUsage)', type: QuotaUsageView })
  usage(@Param('tenantId') tenantId: string) {
    return this.quotas.usage(this.access.assert(tenantId));
  }

  @Get('limits')
  @ApiOperation({
    summary: "A tenant's quota limits",
    description: `The tier, the effective limits, the tier's preset and the explicit overrides. ${ACCESS}`,
  })
  @ApiOkResponse({ description: 'The limits (TenantQuota)', type: TenantQuotaView })
  limits(@Param('tenantId') tenantId: string) {
    return this.quotas.limits(this.access.assert(tenantId));
  }

  @Put('limits')
  @ApiOperation({
    summary: "Set a tenant's explicit quota limits",
    description:
      "Replaces the explicit limits: a limit given (an integer ≥ 0, or null for unlimited) overrides the tier's " +
      `preset; a limit left out follows the tier. Admin role only (403 \`ROLE_REQUIRED\`). ${ACCESS}`,
  })
  @ApiBody({
    type: TenantQuotaLimitsDto,
    examples: {
      custom: {
        summary: 'More concurrency, no daily cap',
        value: { maxConcurrentExecutions: 80, maxEvaluationsPerDay: null },
      },
    },
  })
  @ApiOkResponse({ description: 'The limits (TenantQuota)', type: TenantQuotaView })
  setLimits(@Param('tenantId') tenantId: string, @Body() body: TenantQuotaLimitsDto) {
    const tenant = this.access.assert(tenantId, { admin: true });
    return this.quotas.setLimits(tenant, pickOverrides({ ...objectBody(body) }));
  }

  @Post('upgrade')
  @HttpCode(200)
  @ApiOperation({
    summary: "Put a tenant on a tier's preset",
    description:
      "Applies the tier's preset profile and clears the explicit limits (400 `UNKNOWN_TIER`). Admin role only " +
      `(403 \`ROLE_REQUIRED\`). ${ACCESS}`,
  })
  @ApiBody({ type: UpgradeTierDto, examples: { enterprise: { value: { tier: 'Enterprise' } } } })
  @ApiOkResponse({ description: 'The limits (TenantQuota)', type: TenantQuotaView })
  upgrade(@Param('tenantId') tenantId: string, @Body() body: UpgradeTierDto) {
    const tenant = this.access.assert(tenantId, { admin: true });
    return this.quotas.upgrade(tenant, objectBody(body).tier);
  }
}
