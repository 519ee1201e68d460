import { ApplicationRole1732060000002 } from './1732060000002-application-role';
import { ExperienceService1732060000400 } from '../../experience';
import { LicenseServer1732060000200, LicenseSigningKinds1732060002500 } from '../../license';
import { TokenAuth1732060000100 } from './1732060000100-token-auth';
import { SigningKeyActivation1732060000300 } from './1732060000300-signing-key-activation';
import { CrossTenantReader1732060002402 } from './1732060002402-cross-tenant-reader';

/** Every migration of the identity service, in order. */
export const IDENTITY_MIGRATIONS = [
  ApplicationRole1732060000002,
  TokenAuth1732060000100,
  LicenseServer1732060000200,
  SigningKeyActivation1732060000300,
  ExperienceService1732060000400,
  CrossTenantReader1732060002402,
  LicenseSigningKinds1732060002500,
];
