import { AuthErrorCodes, Policies, RequirePolicy } from '@arbiter/auth';
import { ApiErrorFamily, ApiErrors, defineErrorFamily } from '@arbiter/platform';
import { Controller, Get, Inject } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AuditTrail } from '../application/audit-trail';
import { AuditChainView, AuditPublicKeyView, AuditVerificationView } from './views';

/** The audit routes answer only the platform's and the operator authentication's codes. */
export const AuditErrorFamily = defineErrorFamily({
  name: 'AuditError',
  envelope: 'trace',
  description: 'A signed-audit route failure: `{ error, code, traceId }`.',
  codes: [AuthErrorCodes],
});

/**
 * The tenant's signed audit under the /api/v1/control-plane routes. Every route can answer 400 (a
 * malformed `x-tenant-id`) and, with a policy decision point configured, 503 when it does not answer.
 */
@ApiTags('audit')
@ApiErrorFamily(AuditErrorFamily)
@Controller('api/v1/control-plane/audit')
export class AuditController {
  constructor(@Inject(AuditTrail) private readonly trail: AuditTrail) {}

  @Get('verify')
  @RequirePolicy(Policies.Viewer)
  @ApiOperation({
    summary: "Verify the tenant's whole signed audit chain",
    description:
      "Checks sequence, hash links, hashes, RSA signatures and the chain head with this node's key. " +
      'A broken chain is a 200 with `valid: false`, `firstBadEntry` and `reason`. Policy: `cp.viewer`.',
  })
  @ApiOkResponse({ type: AuditVerificationView })
  @ApiErrors(400, 503)
  verify(): Promise<AuditVerificationView> {
    return this.trail.verifyTenant();
  }

  @Get('chain')
  @RequirePolicy(Policies.Viewer)
  @ApiOperation({
    summary: "The tenant's signed audit chain, for offline verification",
    description:
      'Every entry in `seq` order with its hash and signature, and the chain head; verify it with the ' +
      'key of `GET /audit/public-key`. Policy: `cp.viewer`.',
  })
  @ApiOkResponse({ type: AuditChainView })
  @ApiErrors(400, 503)
  chain(): Promise<AuditChainView> {
    return this.trail.chain();
  }

  @Get('public-key')
  @RequirePolicy(Policies.Viewer)
  @ApiOperation({
    summary: "The public key of this node's audit signatures",
    description: 'Policy: `cp.viewer`.',
  })
  @ApiOkResponse({ type: AuditPublicKeyView })
  @ApiErrors(400, 503)
  publicKey(): AuditPublicKeyView {
    return this.trail.publicKey();
  }
}
