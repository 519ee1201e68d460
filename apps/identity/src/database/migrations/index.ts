import { ApplicationRole1732060000002 } from './1732060000002-application-role';

/** Every migration of the identity service, in order. */
export const IDENTITY_MIGRATIONS = [ApplicationRole1732060000002];
