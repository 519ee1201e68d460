/** A TypeORM entity class. */
export type EntityClass = abstract new (...args: any[]) => object;
/** A TypeORM migration class. */
export type MigrationClass = new () => object;

/** Settings shared by every app's database: which role the unit of work runs as, pool size. */
export interface DatabaseOptions {
  /** Configuration key holding the connection string, e.g. `ConnectionStrings:RuleControlPlaneDb`. */
  connectionStringKey: string;
  entities: EntityClass[];
  migrations: MigrationClass[];
  /** Role that tenant transactions `SET LOCAL ROLE` to (`Database:ApplicationRole`, default arbiter_app). */
  applicationRole?: string;
  poolSize?: number;
  /** PGlite extensions loaded by the embedded server (`vector`: pgvector with HNSW). */
  embeddedExtensions?: EmbeddedExtension[];
}

/** Extensions the embedded PostgreSQL can load. */
export type EmbeddedExtension = 'vector';

let currentRole = 'arbiter_app';

/** The application role for migrations being run (they are instantiated by TypeORM without arguments). */
export function migrationApplicationRole(): string {
  return currentRole;
}

export function setMigrationApplicationRole(role: string): void {
  currentRole = role;
}
