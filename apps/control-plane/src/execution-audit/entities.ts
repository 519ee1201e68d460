import type { EntityClass } from '@arbiter/platform';

/** TypeORM entities of this module (registered in ControlPlaneModule). */
export const EXECUTION_AUDIT_ENTITIES: EntityClass[] = [];
