import { Public } from '@arbiter/auth';
import { ApiErrors } from '@arbiter/platform';
import { Body, Controller, Get, HttpCode, Inject, Param, Post, UseGuards } from '@nestjs/common';
import { ApiBody, ApiHeader, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { ApiErrorResponse, HostedEnvelopeOf, ok } from '../crud';
import { AdminKeyGuard } from './admin-key.guard';
import {
  ActivateDto,
  ActivationView,
  AssemblyApprovalDto,
  AssemblyApprovalView,
  FeatureUpdateDto,
  FeatureUpdateView,
  GenerateKeyDto,
  GenerateKeyView,
  LicenseKeyRotationView,
  LicenseJwksView,
  RevocationSnapshotView,
  RevokeKeyDto,
  RevokeKeyView,
} from './dto';
import { LicenseErrors as E } from './license-errors';
import { LicenseSigner } from './license-signer';
import { ApproveAssembly, GenerateLicense, RevokeLicense, UpdateLicenseFeatures } from './manage-licenses';
import { RevocationSnapshotCache } from './revocation-snapshot';
import { ActivateLicense } from './runtime-checks';

const AdminKey = ApiHeader({
  name: 'X-Admin-Api-Key',
  required: true,
  description: 'Equal to `LicenseServer:AdminApiKey` (compared in constant time)',
  schema: { type: 'string' },
});
const ADMIN_401 = `Missing or wrong \`X-Admin-Api-Key\` (\`${E.AdminKeyInvalid}\`), or no admin key configured (\`${E.AdminKeyNotConfigured}\`)`;
export const MALFORMED = `Malformed license key or wrong check code (\`${E.LicenseKeyMalformed}\`), or a field out of range`;

/**
 * The license server's admin routes (spec 3 part A, `/api/v1/keys/*` and the assembly whitelist): the JWT
 * guard is skipped (`Public`), the admin key guard decides.
 */
@ApiTags('license')
@Controller('api/v1')
@Public()
@UseGuards(AdminKeyGuard)
export class LicenseAdminController {
  constructor(
    @Inject(GenerateLicense) private readonly generateLicense: GenerateLicense,
    @Inject(RevokeLicense) private readonly revokeLicense: RevokeLicense,
    @Inject(UpdateLicenseFeatures) private readonly updateFeatures: UpdateLicenseFeatures,
    @Inject(ApproveAssembly) private readonly approveAssembly: ApproveAssembly,
    @Inject(LicenseSigner) private readonly signer: LicenseSigner,
    @Inject(RevocationSnapshotCache) private readonly snapshots: RevocationSnapshotCache,
  ) {}

  @Post('keys/generate')
  @HttpCode(200)
  @AdminKey
  @ApiOperation({
    summary: 'Issue a license key',
    description:
      '`allowedFeatures` default by tier when omitted. The answer carries the license record signed with the ' +
      'active key (`signedPayload`, base64) and that key id.',
  })
  @ApiBody({ type: GenerateKeyDto })
  @ApiOkResponse({ description: 'The new key', type: HostedEnvelopeOf(GenerateKeyView) })
  @ApiErrorResponse(401, ADMIN_401)
  async generate(@Body() dto: GenerateKeyDto) {
    return ok(await this.generateLicense.execute(dto));
  }

  @Post('keys/revoke')
  @HttpCode(200)
  @AdminKey
  @ApiOperation({
    summary: 'Revoke a license',
    description:
      'Marked in the database and listed in the revocation snapshot (this replica at once, the others at ' +
      'their next refresh). Heartbeats answer `isRevoked` with the grace deadline ' +
      '(`LicenseServer:RevocationGraceHours`, 24). Revoking twice keeps the first revocation.',
  })
  @ApiBody({ type: RevokeKeyDto })
  @ApiOkResponse({ description: 'The revocation', type: HostedEnvelopeOf(RevokeKeyView) })
  @ApiErrorResponse(400, MALFORMED)
  @ApiErrorResponse(401, ADMIN_401)
  @ApiErrorResponse(404, `No license with this key (\`${E.LicenseNotFound}\`)`)
  async revoke(@Body() dto: RevokeKeyDto) {
    return ok(await this.revokeLicense.execute(dto.licenseKey, dto.reason));
  }

  @Post('keys/rotate')
  @HttpCode(200)
  @AdminKey
  @ApiOperation({
    summary: 'Rotate the license signing key now',
    description:
      'What the rotation job does every `LicenseServer:KeyRotationDays`, on demand: a new active key of each kind ' +
      '(PS256 for proofs, records and snapshots; EdDSA for heartbeat answers); the old ones stay published, so ' +
      'documents they signed stay verifiable.',
  })
  @ApiOkResponse({
    description: 'The new and the previous key id',
    type: HostedEnvelopeOf(LicenseKeyRotationView),
  })
  @ApiErrorResponse(401, ADMIN_401)
  async rotate() {
    const rotation = await this.signer.rotate();
    await this.snapshots.refresh();
    return ok(rotation);
  }

  @Post('keys/:licenseKey/features')
  @HttpCode(200)
  @AdminKey
  @ApiOperation({
    summary: "Add and remove a license's capability keys",
    description:
      'Atomic: both lists apply in one update. Proofs already issued keep their features until the machine ' +
      're-activates.',
  })
  @ApiParam({
    name: 'licenseKey',
    schema: { type: 'string', maxLength: 64 },
    example: 'ARB-7K3QX-M2P9D-4RWT8-ZC6NB-5H',
  })
  @ApiBody({ type: FeatureUpdateDto })
  @ApiOkResponse({ description: 'The features now', type: HostedEnvelopeOf(FeatureUpdateView) })
  @ApiErrorResponse(400, `Neither \`add\` nor \`remove\` entries (\`${E.FeatureUpdateEmpty}\`); ${MALFORMED}`)
  @ApiErrorResponse(401, ADMIN_401)
  @ApiErrorResponse(404, `No license with this key (\`${E.LicenseNotFound}\`)`)
  async features(@Param('licenseKey') licenseKey: string, @Body() dto: FeatureUpdateDto) {
    return ok(await this.updateFeatures.execute(licenseKey, dto.add, dto.remove));
  }

  @Post('assembly-whitelist/approve')
  @HttpCode(200)
  @AdminKey
  @ApiOperation({
    summary: 'Approve an assembly hash, globally or for one license',
    description:
      '`Global` for official releases; `License` with a `licenseId` for one customer fork. Needs the admin key ' +
      '(the spec leaves it open; an approval widens what may run, so it is an admin act). Approving the same ' +
      'hash in the same scope again updates it.',
  })
  @ApiBody({ type: AssemblyApprovalDto })
  @ApiOkResponse({ description: 'The approval', type: HostedEnvelopeOf(AssemblyApprovalView) })
  @ApiErrorResponse(400, `Scope and licenseId do not fit (\`${E.ApprovalScopeInvalid}\`)`)
  @ApiErrorResponse(401, ADMIN_401)
  @ApiErrorResponse(404, `No license with this licenseId (\`${E.LicenseNotFound}\`)`)
  async approve(@Body() dto: AssemblyApprovalDto) {
    return ok(await this.approveAssembly.execute(dto));
  }
}

/**
 * The routes runtimes call: the license key (activate) is the credential. Validate and heartbeat are hot
 * routes (license-hot-routes.ts), documented by `LicenseRuntimeRouteDocumentation`.
 */
@ApiTags('license')
@Controller('api/v1')
@Public()
export class LicenseRuntimeController {
  constructor(
    @Inject(ActivateLicense) private readonly activateLicense: ActivateLicense,
    @Inject(RevocationSnapshotCache) private readonly snapshots: RevocationSnapshotCache,
    @Inject(LicenseSigner) private readonly signer: LicenseSigner,
  ) {}

  @Post('activate')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Activate a license on a machine: a signed proof',
    description:
      'The proof (PS256 under `kid`: RSA-2048 PSS, fast to verify offline) carries the license, tier, capability keys, machine, environment, validity, ' +
      'server time, counter and the first heartbeat nonce. A machine already activated re-activates in place ' +
      '(a new proof, same slot).',
  })
  @ApiBody({ type: ActivateDto })
  @ApiOkResponse({ description: 'The proof', type: HostedEnvelopeOf(ActivationView) })
  @ApiErrorResponse(
    400,
    `${MALFORMED}; no signed policy while one is required (\`${E.SignedPolicyRequired}\`)`,
  )
  @ApiErrorResponse(
    401,
    `The signed policy presented fails verification or belongs to another license (\`${E.SignedPolicyInvalid}\`)`,
  )
  @ApiErrorResponse(
    403,
    `Revoked (\`${E.LicenseRevoked}\`), expired (\`${E.LicenseExpired}\`) or a manifest not approved for this license (\`${E.ManifestNotApproved}\`)`,
  )
  @ApiErrorResponse(404, `No license with this key (\`${E.LicenseNotFound}\`)`)
  @ApiErrorResponse(
    409,
    `All activations in use (\`${E.ActivationLimitReached}\`) or the machine is bound to another environment (\`${E.ActivationBindingMismatch}\`)`,
  )
  async activate(@Body() dto: ActivateDto) {
    return ok(await this.activateLicense.execute(dto));
  }

  @Get('revocation/list')
  @ApiOperation({
    summary: 'The signed revocation snapshot',
    description:
      'Every revoked license with its grace deadline, signed, with a `sequence` that only grows (a runtime ' +
      'refuses a lower one). Cached; refreshed every `LicenseServer:RevocationRefreshMinutes`.',
  })
  @ApiOkResponse({ description: 'The snapshot', type: HostedEnvelopeOf(RevocationSnapshotView) })
  @ApiErrors(400)
  async revocations() {
    return ok(await this.snapshots.current());
  }

  @Get('license/keys')
  @ApiOperation({
    summary: 'The public keys that verify license documents (JWKS-style)',
    description:
      'Plain `{ keys: [...] }` (not enveloped): every key the server signs or signed with, by `kid` with its `alg` ' +
      '(`PS256` RSA keys for proofs, records and snapshots; `EdDSA` Ed25519 keys for heartbeat answers). ' +
      'Runtimes keep them to verify proofs offline, also those signed before a rotation.',
  })
  @ApiOkResponse({ description: 'The key set', type: LicenseJwksView })
  @ApiErrors(400)
  publicKeys() {
    return this.signer.jwks();
  }
}
