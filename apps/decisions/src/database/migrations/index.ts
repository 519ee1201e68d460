import { ApplicationRole1732060000001 } from './1732060000001-application-role';

/** Every migration of the decisions service, in order. */
export const DECISIONS_MIGRATIONS = [ApplicationRole1732060000001];
