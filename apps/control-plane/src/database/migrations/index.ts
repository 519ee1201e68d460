import { ApplicationRole1732060000000 } from './1732060000000-application-role';

/** Every migration of the control plane, in order. */
export const CONTROL_PLANE_MIGRATIONS = [ApplicationRole1732060000000];
