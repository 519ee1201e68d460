import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';

/** A user as tokens carry it: effective permissions are the union of the user's roles' permissions. */
export interface UserRecord {
  id: string;
  tenantId: string;
  userName: string;
  roles: string[];
  permissions: string[];
}

/** What login needs to check a password: the hash and whether the account may sign in. */
export interface LoginCandidate {
  id: string;
  password_hash: string;
  is_active: boolean;
}

/** `auth_users` (tenant table under row-level security). Every method runs in the caller's unit of work. */
@Injectable()
export class UserRepository {
  /**
   * An active, undeleted user with its roles that exist (undeleted, matched case-insensitively, under
   * their stored names: a deleted role is not in the token) and their permissions.
   */
  async findWithPermissions(m: EntityManager, userId: string): Promise<UserRecord | undefined> {
    return this.findUser(m, userId, true);
  }

  /** The same for any undeleted user, active or not (what a caller must cover to change the user). */
  async findGrants(m: EntityManager, userId: string): Promise<UserRecord | undefined> {
    return this.findUser(m, userId, false);
  }

  private async findUser(m: EntityManager, userId: string, activeOnly: boolean) {
    const rows = await m.query(
      `SELECT u.id, u.tenant_id, u.user_name,
              coalesce((SELECT array_agg(r.name ORDER BY r.name) FROM auth_roles r
                         WHERE NOT r.is_deleted AND lower(r.name) = ANY (SELECT lower(x) FROM unnest(u.roles) x)), '{}') AS roles,
              coalesce((SELECT array_agg(DISTINCT p) FROM auth_roles r, unnest(r.permissions) p
                         WHERE NOT r.is_deleted AND lower(r.name) = ANY (SELECT lower(x) FROM unnest(u.roles) x)), '{}') AS permissions
         FROM auth_users u WHERE u.id = $1 AND NOT u.is_deleted ${activeOnly ? 'AND u.is_active' : ''}`,
      [userId],
    );
    const row = rows[0];
    if (!row) return undefined;
    return {
      id: row.id,
      tenantId: row.tenant_id,
      userName: row.user_name,
      roles: row.roles ?? [],
      permissions: row.permissions ?? [],
    };
  }

  /**
   * The user a login identifier names: user name or e-mail (case-insensitive), the user name first.
   * `normalized` is the identifier as the throttle normalises it (user names are ASCII, so it matches
   * them whatever Unicode look-alike was typed); e-mails also match as typed.
   */
  async findLoginCandidate(
    m: EntityManager,
    identifier: string,
    normalized: string = identifier.toLowerCase(),
  ): Promise<LoginCandidate | undefined> {
    const rows = await m.query(
      `SELECT id, password_hash, is_active FROM auth_users
        WHERE NOT is_deleted AND (lower(user_name) = $2 OR lower(email) = lower($1) OR lower(email) = $2)
        ORDER BY (lower(user_name) = $2) DESC LIMIT 1`,
      [identifier, normalized],
    );
    return rows[0];
  }

  /** The undeleted users of the current tenant holding a role (name case-insensitive). */
  async idsWithRole(m: EntityManager, roleName: string): Promise<string[]> {
    const rows: { id: string }[] = await m.query(
      `SELECT id FROM auth_users
        WHERE NOT is_deleted AND lower($1) = ANY (SELECT lower(x) FROM unnest(roles) x)`,
      [roleName],
    );
    return rows.map((r) => r.id);
  }

  /**
   * Whether the current tenant has (or had) any user, serialised per tenant for the rest of the
   * transaction (an advisory lock), so two registrations cannot both find a new tenant empty.
   */
  async lockTenantAndHasUsers(m: EntityManager, tenantId: string): Promise<boolean> {
    await m.query(`SELECT pg_advisory_xact_lock(hashtext('auth_users:' || $1))`, [tenantId]);
    const rows: { found: boolean }[] = await m.query(`SELECT EXISTS (SELECT 1 FROM auth_users) AS found`);
    return rows[0]?.found === true;
  }

  /** Inserts a user unless an undeleted one has the name already; true when inserted. */
  async insertIfNameFree(
    m: EntityManager,
    user: { id: string; tenantId: string; userName: string; passwordHash: string; roles: string[] },
  ): Promise<boolean> {
    const inserted = await m.query(
      `INSERT INTO auth_users (id, tenant_id, user_name, password_hash, roles)
       SELECT $1, $2, $3, $4, $5
        WHERE NOT EXISTS (SELECT 1 FROM auth_users WHERE lower(user_name) = lower($3) AND NOT is_deleted)
       RETURNING id`,
      [user.id, user.tenantId, user.userName, user.passwordHash, user.roles],
    );
    return inserted.length > 0;
  }
}
