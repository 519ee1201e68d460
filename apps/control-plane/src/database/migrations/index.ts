import { ApplicationRole1732060000000 } from './1732060000000-application-role';
import { RuleSets1732060000100 } from './1732060000100-rule-sets';

/** Every migration of the control plane, in order. */
export const CONTROL_PLANE_MIGRATIONS = [ApplicationRole1732060000000, RuleSets1732060000100];
