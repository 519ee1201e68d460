import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { LicenseServerSettings } from '../settings';
import { LicenseSigner } from './license-signer';
import { RevocationSnapshotCache } from './revocation-snapshot';

/** How often the rotation job looks whether the active key is older than `KeyRotationDays`. */
const ROTATION_CHECK_MS = 60 * 60_000;

/**
 * Startup as the spec orders it (migrations ran before): an active signing key ensured, the revocation
 * snapshot cache refreshed; then the background jobs: key rotation (checked hourly, rotating when the
 * active key is `LicenseServer:KeyRotationDays` old, under an advisory lock so one replica rotates) and
 * revocation refresh every `LicenseServer:RevocationRefreshMinutes` (which also picks up a key another
 * replica rotated to).
 */
@Injectable()
export class LicenseJobs implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('LicenseJobs');
  private timers: NodeJS.Timeout[] = [];

  constructor(
    private readonly signer: LicenseSigner,
    private readonly snapshots: RevocationSnapshotCache,
    @Inject(LicenseServerSettings) private readonly settings: LicenseServerSettings,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.signer.ensureActiveKey();
    await this.snapshots.refresh();
    const rotation = setInterval(() => void this.rotationTick(), ROTATION_CHECK_MS);
    const refresh = setInterval(
      () => void this.refreshTick(),
      this.settings.revocationRefreshMinutes * 60_000,
    );
    for (const timer of [rotation, refresh]) timer.unref();
    this.timers = [rotation, refresh];
  }

  /** One run of the rotation job (also what an operator's forced run does, without the age check). */
  async rotationTick(): Promise<void> {
    try {
      const rotated = await this.signer.rotateIfDue(Math.max(1, this.settings.keyRotationDays));
      if (rotated) {
        this.logger.log(`rotated the license signing key ${rotated.previousKid} → ${rotated.kid}`);
        await this.snapshots.refresh();
      }
    } catch (error) {
      this.logger.error(`key rotation job failed: ${(error as Error).message}`);
    }
  }

  async refreshTick(): Promise<void> {
    try {
      await this.signer.reload();
      await this.snapshots.refresh();
    } catch (error) {
      this.logger.error(`revocation refresh failed: ${(error as Error).message}`);
    }
  }

  onApplicationShutdown(): void {
    for (const timer of this.timers) clearInterval(timer);
    this.timers = [];
  }
}
