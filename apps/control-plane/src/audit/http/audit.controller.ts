import { Policies, RequirePolicy } from '@arbiter/auth';
import { Controller, Get, Inject } from '@nestjs/common';
import { ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { AuditTrail } from '../application/audit-trail';

/** The tenant's signed audit under the /api/v1/control-plane routes. */
@ApiTags('audit')
@Controller('api/v1/control-plane/audit')
export class AuditController {
  constructor(@Inject(AuditTrail) private readonly trail: AuditTrail) {}

  @Get('verify')
  @RequirePolicy(Policies.Viewer)
  @ApiOkResponse({
    description: '{ valid, tenantId, entriesChecked, firstBadEntry, reason, headSeq, workflowName, keyId }',
  })
  verify() {
    return this.trail.verifyTenant();
  }

  @Get('chain')
  @RequirePolicy(Policies.Viewer)
  @ApiOkResponse({
    description: 'The tenant audit chain for offline verification: { tenantId, keyId, entries, head }',
  })
  chain() {
    return this.trail.chain();
  }

  @Get('public-key')
  @RequirePolicy(Policies.Viewer)
  publicKey() {
    return this.trail.publicKey();
  }
}
