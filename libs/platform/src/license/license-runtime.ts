import { CommonErrorCodes } from '@arbiter/contracts';
import {
  ClockState,
  evaluateLicense,
  hasFeature,
  LicenseKeySet,
  LicenseState,
  PreparedDocument,
  prepareDocument,
} from '@arbiter/licensing';
import {
  applyDecorators,
  CanActivate,
  Global,
  Inject,
  Injectable,
  Logger,
  Module,
  OnModuleInit,
  SetMetadata,
  UseGuards,
  ExecutionContext,
} from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { IsBoolean, IsString } from 'class-validator';
import { readFileSync } from 'node:fs';
import { ConfigKey, ConfigurationError } from '../config/config-binding';
import { AppError } from '../errors/app-error';

/** `License:*`: the runtime's own license (spec 3: the license check step of the request pipeline). */
export class LicenseRuntimeSettings {
  @ConfigKey('License:EnforceOnMiddleware')
  @IsBoolean()
  enforceOnMiddleware: boolean = false;

  /** The activation proof saved by `arbiter license activate` (decoded JSON, or its base64). */
  @ConfigKey('License:FilePath')
  @IsString()
  filePath: string = '';

  /** Ours: the license server's public keys (JWKS). Default `<License:FilePath>.keys.json`. */
  @ConfigKey('License:KeysPath')
  @IsString()
  keysPath: string = '';
}

/** Codes of the license step (in every service's error family). */
export const LicenseRuntimeErrors = {
  LicenseInvalid: CommonErrorCodes.LicenseInvalid,
  LicenseFeatureRequired: CommonErrorCodes.LicenseFeatureRequired,
} as const;

/** How long an evaluation is reused (the proof is re-verified at most this often). */
const EVALUATION_TTL_MS = 1000;

/**
 * The license this service runs under, from `License:FilePath` (verified offline with @arbiter/licensing
 * against the keys in `License:KeysPath`). Loaded at startup: with enforcement on, a file that cannot be
 * read stops the start naming the key; a proof that does not verify leaves the service up but refusing
 * (403 `LICENSE_INVALID`) and reporting why. The clock state (newest server time and counter seen) lives
 * in memory, so a clock set back while the service runs is caught.
 */
@Injectable()
export class RuntimeLicense implements OnModuleInit {
  private readonly logger = new Logger('License');
  private proof: unknown;
  /** The proof decoded and canonicalised once (every re-verification checks the signature again). */
  private prepared: PreparedDocument | undefined;
  private keys: LicenseKeySet | undefined;
  private loadError: string | undefined;
  private clock: ClockState | undefined;
  private cached: { at: number; state: LicenseState } | undefined;

  constructor(@Inject(LicenseRuntimeSettings) readonly settings: LicenseRuntimeSettings) {}

  /** Whether a proof file is configured (the info endpoint then reports it instead of its settings). */
  get configured(): boolean {
    return this.settings.filePath.trim() !== '';
  }

  get enforced(): boolean {
    return this.settings.enforceOnMiddleware;
  }

  onModuleInit(): void {
    if (!this.configured) {
      if (this.enforced) {
        throw new ConfigurationError(
          'License:FilePath is required when License:EnforceOnMiddleware is true',
          ['License:FilePath'],
        );
      }
      return;
    }
    this.load();
    if (this.enforced && this.loadError) {
      throw new ConfigurationError(`License:FilePath: ${this.loadError}`, ['License:FilePath']);
    }
    const state = this.state();
    if (state.valid)
      this.logger.log(`license ${state.licenseId} (${state.tier}) valid until ${state.expiresAt}`);
    else this.logger.warn(`license not valid: ${state.reason} (${state.message})`);
  }

  /** (Re)reads the proof and the keys. */
  load(): void {
    const file = this.settings.filePath.trim();
    const keysFile = this.settings.keysPath.trim() || `${file}.keys.json`;
    this.cached = undefined;
    try {
      const text = readFileSync(file, 'utf8').trim();
      this.proof = text.startsWith('{') ? JSON.parse(text) : text;
      this.prepared = prepareDocument(this.proof);
      this.keys = new LicenseKeySet(JSON.parse(readFileSync(keysFile, 'utf8')));
      this.loadError = undefined;
    } catch (error) {
      this.loadError = `cannot read the license proof ${file} or its keys ${keysFile}: ${(error as Error).message}`;
    }
  }

  /** The license state now (re-verified at most once a second). */
  state(now = new Date()): LicenseState {
    if (this.cached && now.getTime() - this.cached.at < EVALUATION_TTL_MS) return this.cached.state;
    let state: LicenseState;
    if (!this.keys || this.loadError) {
      state = {
        valid: false,
        reason: 'MALFORMED',
        message: this.loadError ?? 'no license proof configured',
        licenseId: null,
        tier: null,
        allowedFeatures: [],
        expiresAt: null,
        graceDeadline: null,
        clock: this.clock,
      };
    } else {
      state = evaluateLicense({
        proof: this.prepared ?? this.proof,
        keys: this.keys,
        now,
        clock: this.clock,
      });
      if (state.valid) this.clock = state.clock;
    }
    this.cached = { at: now.getTime(), state };
    return state;
  }

  /** The proof as base64 (for the info endpoint), when configured. */
  activationProof(): string | null {
    if (this.proof === undefined) return null;
    return typeof this.proof === 'string'
      ? this.proof
      : Buffer.from(JSON.stringify(this.proof)).toString('base64');
  }

  /** The pipeline step: with enforcement on, an invalid license refuses the request. */
  assertValid(): void {
    if (!this.enforced) return;
    const state = this.state();
    if (!state.valid) {
      throw AppError.forbidden(
        `License not valid: ${state.reason} (${state.message})`,
        LicenseRuntimeErrors.LicenseInvalid,
      );
    }
  }

  /** A feature gate: with enforcement on, the license must be valid and grant `feature` (`*` grants all). */
  assertFeature(feature: string): void {
    if (!this.enforced) return;
    this.assertValid();
    if (!hasFeature(this.state().allowedFeatures, feature)) {
      throw AppError.forbidden(
        `The license does not grant '${feature}'`,
        LicenseRuntimeErrors.LicenseFeatureRequired,
      );
    }
  }
}

/**
 * The license step of the auth pipeline (bound as `licenseCheck` of `AuthModule.forRoot`: after
 * authentication, before quota and permissions, as the spec orders it).
 */
@Injectable()
export class RuntimeLicenseCheck {
  constructor(@Inject(RuntimeLicense) private readonly license: RuntimeLicense) {}

  check(): void {
    this.license.assertValid();
  }
}

const FEATURE_KEY = 'arbiter:license:feature';

@Injectable()
export class LicenseFeatureGuard implements CanActivate {
  constructor(
    @Inject(RuntimeLicense) private readonly license: RuntimeLicense,
    @Inject(Reflector) private readonly reflector: Reflector,
  ) {}

  canActivate(context: ExecutionContext): boolean {
    const feature = this.reflector.getAllAndOverride<string | undefined>(FEATURE_KEY, [
      context.getHandler(),
      context.getClass(),
    ]);
    if (feature) this.license.assertFeature(feature);
    return true;
  }
}

/** Gates a controller or route on a capability key when `License:EnforceOnMiddleware` is on (403 otherwise). */
export const RequireLicenseFeature = (feature: string) =>
  applyDecorators(SetMetadata(FEATURE_KEY, feature), UseGuards(LicenseFeatureGuard));

/** The runtime license for every module of a service (imported by `ServiceFoundationModule`). */
@Global()
@Module({
  providers: [RuntimeLicense, RuntimeLicenseCheck, LicenseFeatureGuard],
  exports: [RuntimeLicense, RuntimeLicenseCheck, LicenseFeatureGuard],
})
export class LicenseRuntimeModule {}
