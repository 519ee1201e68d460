import type { EntityClass } from '@arbiter/platform';
import { UiCatalogSnapshotEntity } from './persistence/snapshot.entity';

/** TypeORM entities of this module (registered in ControlPlaneModule). */
export const CATALOG_ENTITIES: EntityClass[] = [UiCatalogSnapshotEntity];
