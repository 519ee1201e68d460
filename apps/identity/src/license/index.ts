export { LicenseModule } from './license.module';
export { LicenseErrors } from './license-errors';
export { LicenseServer1732060000200 } from './persistence/license-migration';
export { LicenseSigningKinds1732060002500 } from './persistence/license-signing-kinds-migration';
export { UsageRecorder } from './usage-recorder';
export { LicenseJobs } from './license-jobs';
export { LicenseSigner } from './license-signer';
export { LicenseRuntimeRouteDocumentation } from './license-runtime.docs';
