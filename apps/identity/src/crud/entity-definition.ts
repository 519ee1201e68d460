import type { Type } from '@nestjs/common';
import type { EntityManager } from 'typeorm';

/**
 * One entity type served by the generic CRUD endpoints at `api/v{version}/{plural}`. The table needs
 * `id uuid`, `tenant_id` (under row-level security), `creation_time`, `last_modification_time`,
 * `is_deleted`, `deletion_time`. Adding an entity type is one of these plus its table.
 */
export interface EntityDefinition {
  /** Route segment and OpenAPI tag: `users`. */
  plural: string;
  /** One entry, in the operations' summaries: `user`. */
  singular: string;
  /** Permission prefix: `Users` gives `Users.View`, `Users.Create`, `Users.Update`, `Users.Delete`. */
  permissionPrefix: string;
  table: string;
  /** API field name → column, for what is returned (never secrets). `id`, `creationTime` and `lastModificationTime` are added. */
  fields: Record<string, string>;
  /**
   * Response class of one entry (`id`, the `fields`, `creationTime`, `lastModificationTime`): the entity's
   * schema in the OpenAPI document, from which its page and saved-entry schemas are built. Named `…View`.
   */
  view: Type<object>;
  /** class-validator DTOs for POST and PUT (PUT is a partial update: absent fields stay unchanged). */
  createDto: Type<object>;
  updateDto: Type<object>;
  /** API field name → column for writes; defaults to `fields`. Extra columns may come from `prepare`. */
  writable?: Record<string, string>;
  /** Turns a validated DTO into column values (e.g. hashes a password). */
  prepare?(
    dto: Record<string, unknown>,
    mode: 'create' | 'update',
    manager: EntityManager,
  ): Promise<Record<string, unknown>>;
  /** Error code for a unique-constraint violation (409), from the feature's catalog; else `CONFLICT`. */
  conflictCode?: string;
}
