import { Public } from '@arbiter/auth';
import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiBody, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiErrorResponse, HostedEnvelopeOf } from '../crud';
import { HeartbeatDto, HeartbeatView, ValidateDto, ValidateView } from './dto';
import { LicenseErrors as E } from './license-errors';
import { MALFORMED } from './license.controller';

const HOT_ROUTE = 'Documentation only: LicenseHotRoutes (license-hot-routes.ts) serves this route';

/**
 * Documentation only: `POST /api/v1/validate` and `POST /api/v1/heartbeat` are served in front of Nest by
 * `LicenseHotRoutes` (license-hot-routes.ts). This controller is never routed and its methods never called;
 * it is listed in `openApi.unroutedControllers` (src/service.ts) so the operations are in the OpenAPI
 * document (under the operation ids they always had) like every other route.
 */
@ApiTags('license')
@Controller('api/v1')
@Public()
export class LicenseRuntimeRouteDocumentation {
  @Post('validate')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'licenseRuntimeValidate',
    summary: 'Is an action allowed for a license on a machine (online check)?',
    description:
      'Every call records a usage metric (batched). A malformed key is 400; every other answer is 200. ' +
      'Answered from an in-memory read of the license, dropped on every replica when the license is revoked, ' +
      'its features change or a machine is activated; expiry is checked on every call.',
  })
  @ApiBody({ type: ValidateDto })
  @ApiOkResponse({ description: 'The answer', type: HostedEnvelopeOf(ValidateView) })
  @ApiErrorResponse(400, MALFORMED)
  validate(@Body() _dto: ValidateDto): never {
    throw new Error(HOT_ROUTE);
  }

  @Post('heartbeat')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'licenseRuntimeHeartbeat',
    summary: 'Heartbeat: spend the nonce, get the next one (or the revocation)',
    description:
      'Body `{ proofId, licenseId, machineFingerprint, nonce }`. Each nonce works once (a replay is 409). The ' +
      'answer is signed (EdDSA: Ed25519, cheap per call) and binds the new nonce to the proof; after revocation ' +
      '`isRevoked: true` with `graceDeadline`.',
  })
  @ApiBody({ type: HeartbeatDto })
  @ApiOkResponse({ description: 'The signed answer', type: HostedEnvelopeOf(HeartbeatView) })
  @ApiErrorResponse(400, 'A field out of range (`VALIDATION_FAILED`)')
  @ApiErrorResponse(
    403,
    `The nonce belongs to another proof, license or machine (\`${E.HeartbeatMismatch}\`)`,
  )
  @ApiErrorResponse(409, `Unknown or already used nonce (\`${E.NonceInvalid}\`)`)
  heartbeat(@Body() _dto: HeartbeatDto): never {
    throw new Error(HOT_ROUTE);
  }
}
