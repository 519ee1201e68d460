import { Public } from '@arbiter/auth';
import { ApiErrorFamily, defineErrorFamily, RuntimeLicense } from '@arbiter/platform';
import { Controller, Get, Inject } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProperty, ApiResponse, ApiTags } from '@nestjs/swagger';
import { RuntimeInfoSettings } from './runtime-info.settings';
import { BUILD_VERSION } from '../version';

/** The public info route answers only the platform's codes (a malformed `x-tenant-id`, a failure). */
export const RuntimeInfoErrorFamily = defineErrorFamily({
  name: 'RuntimeInfoError',
  envelope: 'trace',
  description: 'A runtime-info failure: `{ error, code, traceId }`.',
  codes: [],
});

/** The values of `ControlPlaneRuntimeInfo:*`, for a dashboard to bootstrap its license state. */
export class RuntimeInfoView {
  @ApiProperty({
    description: '`ControlPlaneRuntimeInfo:Version`, or the build version when empty.',
    example: '0.1.0',
  })
  version!: string;

  @ApiProperty({
    type: 'string',
    nullable: true,
    description: '`ControlPlaneRuntimeInfo:ActivationProof`; null when empty.',
    example: null,
  })
  activationProof!: string | null;

  @ApiProperty({ description: '`ControlPlaneRuntimeInfo:Tier` (default `Free`).', example: 'Enterprise' })
  tier!: string;

  @ApiProperty({ description: 'Whether the commercial runtime proof is valid.', example: false })
  isValid!: boolean;

  @ApiProperty({
    type: 'string',
    nullable: true,
    description: '`ControlPlaneRuntimeInfo:LicenseId` (metadata only); null when empty.',
    example: null,
  })
  licenseId!: string | null;

  @ApiProperty({
    type: 'string',
    isArray: true,
    description: 'Features injected into the runtime license state; `*` means all.',
    example: ['cp.publish'],
  })
  allowedFeatures!: string[];
}

/** Public runtime info so a dashboard can bootstrap its license state (`ControlPlaneRuntimeInfo:*`). */
@ApiTags('runtime info')
@ApiErrorFamily(RuntimeInfoErrorFamily)
@Public()
@Controller('api/v1/info')
export class RuntimeInfoController {
  constructor(
    @Inject(RuntimeInfoSettings) private readonly settings: RuntimeInfoSettings,
    @Inject(RuntimeLicense) private readonly license: RuntimeLicense,
  ) {}

  @Get()
  @ApiOperation({
    summary: 'Runtime info: version, license tier and allowed features (public)',
    description:
      'No credentials needed; a malformed `x-tenant-id` is still refused (400). With `License:FilePath` the tier, ' +
      'validity, license id and features come from that activation proof (verified offline); otherwise from ' +
      '`ControlPlaneRuntimeInfo:*`.',
  })
  @ApiOkResponse({ type: RuntimeInfoView, description: 'The runtime info' })
  @ApiResponse({ status: 400, description: 'Bad request: `INVALID_TENANT_ID` (a malformed `x-tenant-id`)' })
  info(): RuntimeInfoView {
    const s = this.settings;
    if (this.license.configured) {
      // `License:FilePath`: the real license state, from the proof verified offline
      const state = this.license.state();
      return {
        version: s.version.trim() || BUILD_VERSION,
        activationProof: this.license.activationProof(),
        tier: state.tier ?? s.tier,
        isValid: state.valid,
        licenseId: state.licenseId,
        allowedFeatures: state.valid ? state.allowedFeatures : [],
      };
    }
    return {
      version: s.version.trim() || BUILD_VERSION,
      activationProof: s.activationProof || null,
      tier: s.tier,
      isValid: s.isValid,
      licenseId: s.licenseId || null,
      allowedFeatures: s.allowedFeatures,
    };
  }
}
