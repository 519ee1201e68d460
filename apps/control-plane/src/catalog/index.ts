export { CatalogModule } from './catalog.module';
export { CATALOG_ENTITIES } from './entities';
export { CATALOG_SETTINGS } from './catalog.settings';
export { CatalogErrorFamily, CatalogErrors } from './application/errors';
