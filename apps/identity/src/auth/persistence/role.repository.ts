import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';

/** A role as the grant checks need it. */
export interface RoleGrant {
  id: string;
  name: string;
  permissions: string[];
}

/** `auth_roles` (tenant table under row-level security) beyond the generic CRUD. */
@Injectable()
export class RoleRepository {
  /** The undeleted roles of the current tenant whose names are in `names` (case-insensitive). */
  async findByNames(m: EntityManager, names: string[]): Promise<RoleGrant[]> {
    if (names.length === 0) return [];
    return m.query(
      `SELECT id, name, permissions FROM auth_roles
        WHERE NOT is_deleted AND lower(name) = ANY (SELECT lower(x) FROM unnest($1::text[]) x)`,
      [names],
    );
  }

  /** An undeleted role of the current tenant. */
  async findById(m: EntityManager, id: string): Promise<RoleGrant | undefined> {
    const rows: RoleGrant[] = await m.query(
      `SELECT id, name, permissions FROM auth_roles WHERE id = $1 AND NOT is_deleted`,
      [id],
    );
    return rows[0];
  }

  /** Inserts a role unless an undeleted one has the name already (case-insensitive). */
  async insertIfNameFree(
    m: EntityManager,
    role: { id: string; tenantId: string; name: string; description: string; permissions: string[] },
  ): Promise<void> {
    await m.query(
      `INSERT INTO auth_roles (id, tenant_id, name, description, permissions)
       SELECT $1, $2, $3, $4, $5
        WHERE NOT EXISTS (SELECT 1 FROM auth_roles WHERE lower(name) = lower($3) AND NOT is_deleted)`,
      [role.id, role.tenantId, role.name, role.description, role.permissions],
    );
  }
}
