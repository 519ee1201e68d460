export { createCrudController } from './crud.controller';
export { CrudRepository } from './crud.repository';
export type { CrudRow } from './crud.repository';
export { CrudService } from './crud.service';
export { CrudWriteHooks } from './crud-write-hooks';
export type { CrudWrite } from './crud-write-hooks';
export type { DeletedEntry, Page } from './crud.service';
export type { EntityDefinition } from './entity-definition';
export { ok } from './envelope';
export { CrudErrors } from './crud-errors';
export {
  ApiErrorResponse,
  DeletedEntryView,
  HostedEnvelopeOf,
  hostedExample,
  HostedErrorItemView,
  PageOf,
  SavedEntryOf,
} from './views';
