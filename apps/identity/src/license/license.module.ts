import { Module } from '@nestjs/common';
import { AdminKeyGuard } from './admin-key.guard';
import { LicenseAdminController, LicenseRuntimeController } from './license.controller';
import { HeartbeatWriter } from './heartbeat-writer';
import { LicenseHotRoutes } from './license-hot-routes';
import { LicenseJobs } from './license-jobs';
import { LicenseSigner } from './license-signer';
import { ApproveAssembly, GenerateLicense, RevokeLicense, UpdateLicenseFeatures } from './manage-licenses';
import { ActivationRepository } from './persistence/activation.repository';
import { LicenseKeyRepository } from './persistence/license-key.repository';
import {
  AssemblyApprovalRepository,
  LicenseSigningKeyRepository,
  RevocationRepository,
  UsageMetricRepository,
} from './persistence/license-store.repository';
import { RevocationSnapshotCache } from './revocation-snapshot';
import { ActivateLicense, Heartbeat, ValidateLicense } from './runtime-checks';
import { UsageRecorder } from './usage-recorder';
import { ValidationCache } from './validation-cache';

/** The license server (spec 3 part A) on identity's database (`ConnectionStrings:LicenseDb`). */
@Module({
  providers: [
    LicenseKeyRepository,
    ActivationRepository,
    RevocationRepository,
    UsageMetricRepository,
    LicenseSigningKeyRepository,
    AssemblyApprovalRepository,
    LicenseSigner,
    RevocationSnapshotCache,
    UsageRecorder,
    ValidationCache,
    LicenseJobs,
    AdminKeyGuard,
    GenerateLicense,
    RevokeLicense,
    UpdateLicenseFeatures,
    ApproveAssembly,
    ActivateLicense,
    ValidateLicense,
    HeartbeatWriter,
    Heartbeat,
    LicenseHotRoutes,
  ],
  controllers: [LicenseAdminController, LicenseRuntimeController],
  exports: [UsageRecorder, LicenseJobs, LicenseSigner],
})
export class LicenseModule {}
