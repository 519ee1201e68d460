import { coversPermission, policiesOfRole } from '@arbiter/auth';
import { AppError, RequestContext } from '@arbiter/platform';
import { Inject, Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { CrudWrite } from '../crud';
import { AuthErrors as E } from './auth-errors';
import { RoleGrant, RoleRepository } from './persistence/role.repository';
import { UserRepository } from './persistence/user.repository';

/** Changing a user's roles is its own permission (besides `Users.Create` / `Users.Update`). */
export const ASSIGN_ROLES_PERMISSION = 'Users.AssignRoles';

/**
 * Nobody grants what they do not hold. Checked inside the write's transaction, against the caller's
 * token permissions:
 *
 * - a role's permissions (created or replaced) must each be covered by the caller's (`coversPermission`);
 * - assigning roles to a user (create with roles, or any change of `roles`) needs `Users.AssignRoles`, and
 *   every role assigned must exist and be covered: its permissions plus the control-plane policies its
 *   exact name carries (`Admin` → `cp.admin`, …);
 * - changing or deleting a user or a role needs the caller to cover everything that user or role holds
 *   already (a `Users.Update` holder cannot reset an administrator's password or deactivate them).
 */
@Injectable()
export class GrantPolicy {
  constructor(
    @Inject(UserRepository) private readonly users: UserRepository,
    @Inject(RoleRepository) private readonly roles: RoleRepository,
  ) {}

  private held(): string[] {
    return RequestContext.current()?.user?.permissions ?? [];
  }

  private assertCovers(permissions: string[], what: string): void {
    const held = this.held();
    const missing = permissions.filter((p) => !coversPermission(held, p));
    if (missing.length > 0) {
      throw AppError.forbidden(`${what} needs permissions you do not hold: ${missing.join(', ')}`, E.NotHeld);
    }
  }

  private grantsOfRole(role: RoleGrant): string[] {
    return [...role.permissions, ...policiesOfRole(role.name)];
  }

  async checkUserWrite(write: CrudWrite, m: EntityManager): Promise<void> {
    if (write.mode !== 'create') {
      const target = await this.users.findGrants(m, write.id!);
      if (target) {
        this.assertCovers(
          [...target.permissions, ...target.roles.flatMap((r) => policiesOfRole(r))],
          `Changing user '${target.userName}'`,
        );
      }
    }
    const roles = write.dto?.roles;
    if (!Array.isArray(roles) || (write.mode === 'create' && roles.length === 0)) return;
    this.assertCovers([ASSIGN_ROLES_PERMISSION], 'Assigning roles');
    const names = roles.map(String);
    const found = await this.roles.findByNames(m, names);
    const unknown = names.filter((n) => !found.some((r) => r.name.toLowerCase() === n.toLowerCase()));
    if (unknown.length > 0) {
      throw AppError.badRequest(E.UnknownRole, `No such role in the tenant: ${unknown.join(', ')}`);
    }
    this.assertCovers(
      found.flatMap((r) => this.grantsOfRole(r)),
      'Assigning these roles',
    );
  }

  async checkRoleWrite(write: CrudWrite, m: EntityManager): Promise<void> {
    if (write.mode !== 'create') {
      const role = await this.roles.findById(m, write.id!);
      if (role) this.assertCovers(this.grantsOfRole(role), `Changing role '${role.name}'`);
    }
    const permissions = write.dto?.permissions;
    const name = typeof write.dto?.name === 'string' ? write.dto.name : '';
    const granted = [...(Array.isArray(permissions) ? permissions.map(String) : []), ...policiesOfRole(name)];
    this.assertCovers(granted, 'This role');
  }
}
