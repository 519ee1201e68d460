import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';

/** `auth_roles` (tenant table under row-level security) beyond the generic CRUD. */
@Injectable()
export class RoleRepository {
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
