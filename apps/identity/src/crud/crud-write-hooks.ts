import type { EntityManager } from 'typeorm';
import type { EntityDefinition } from './entity-definition';

/** One write through the generic CRUD endpoints, as the hooks see it. */
export interface CrudWrite {
  mode: 'create' | 'update' | 'delete';
  /** The entry's id (update, delete; after a create, the new id). */
  id?: string;
  /** The validated body (create, update). */
  dto?: Record<string, unknown>;
}

/**
 * Checks and consequences of writes, run inside the write's transaction: `before` may refuse it (it
 * throws), `after` applies what follows from it (e.g. ending the sessions of a user whose password
 * changed). Identity's auth feature provides them for users and roles.
 */
export abstract class CrudWriteHooks {
  abstract before(def: EntityDefinition, write: CrudWrite, m: EntityManager): Promise<void>;
  abstract after(def: EntityDefinition, write: CrudWrite, m: EntityManager): Promise<void>;
  /** Runs after the transaction has committed (e.g. publishing on the bus). */
  abstract committed(def: EntityDefinition, write: CrudWrite): Promise<void>;
}
