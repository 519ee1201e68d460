export { LicenseModule } from './license.module';
export { LicenseErrors } from './license-errors';
export { LicenseServer1732060000200 } from './persistence/license-migration';
export { UsageRecorder } from './usage-recorder';
export { LicenseJobs } from './license-jobs';
export { LicenseSigner } from './license-signer';
