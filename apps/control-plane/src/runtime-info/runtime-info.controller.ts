import { Public } from '@arbiter/auth';
import { Controller, Get, Inject } from '@nestjs/common';
import { ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { RuntimeInfoSettings } from './runtime-info.settings';
import { BUILD_VERSION } from '../version';

/** Public runtime info so a dashboard can bootstrap its license state (`ControlPlaneRuntimeInfo:*`). */
@ApiTags('runtime info')
@Public()
@Controller('api/v1/info')
export class RuntimeInfoController {
  constructor(@Inject(RuntimeInfoSettings) private readonly settings: RuntimeInfoSettings) {}

  @Get()
  @ApiOkResponse({ description: 'version, activationProof, tier, isValid, licenseId, allowedFeatures' })
  info() {
    const s = this.settings;
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
