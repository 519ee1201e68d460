import { AuthErrorCodes, Policies, RequirePolicy } from '@arbiter/auth';
import { ApiErrorFamily, ApiErrors, defineErrorFamily } from '@arbiter/platform';
import { applyDecorators, Controller, Get, Inject } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
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
 * What every audit route can answer besides 401/403: 400 for a malformed `x-tenant-id` (listed on every
 * operation by the document itself), and 503 when a configured policy decision point
 * (`ControlPlaneAuth:PolicyDecisionPointUrl`) does not answer.
 */
function ApiAuditErrors(): MethodDecorator {
  return applyDecorators(
    ApiResponse({ status: 400, description: 'Bad request: `INVALID_TENANT_ID` (a malformed `x-tenant-id`)' }),
    ApiResponse({ status: 503, description: 'The policy decision point did not answer: `PDP_UNAVAILABLE`' }),
    ApiErrors(503),
  );
}

/** The tenant's signed audit under the /api/v1/control-plane routes. */
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
      "Checks sequence, hash links, hashes, RSA signatures and the signed chain head with this node's key " +
      '(deleting the newest entries and rewinding the head fails the head signature). ' +
      'A broken chain is a 200 with `valid: false`, `firstBadEntry` and `reason`. Policy: `cp.viewer`.',
  })
  @ApiOkResponse({
    type: AuditVerificationView,
    description: 'The verification (a broken chain is `valid: false`)',
  })
  @ApiAuditErrors()
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
  @ApiOkResponse({ type: AuditChainView, description: 'The chain and its head' })
  @ApiAuditErrors()
  chain(): Promise<AuditChainView> {
    return this.trail.chain();
  }

  @Get('public-key')
  @RequirePolicy(Policies.Viewer)
  @ApiOperation({
    summary: "The public key of this node's audit signatures",
    description: 'Policy: `cp.viewer`.',
  })
  @ApiOkResponse({ type: AuditPublicKeyView, description: 'The public key' })
  @ApiAuditErrors()
  publicKey(): AuditPublicKeyView {
    return this.trail.publicKey();
  }
}
