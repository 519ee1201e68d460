import { RevocationEntry } from '@arbiter/auth';
import { RequestContext } from '@arbiter/platform';
import { Inject, Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { CrudWrite, CrudWriteHooks, EntityDefinition } from '../crud';
import { GrantPolicy } from './grant-policy';
import { RoleRepository } from './persistence/role.repository';
import { UserRepository } from './persistence/user.repository';
import { TokenService } from './token.service';

/** The user fields whose change ends the user's sessions. */
const SESSION_FIELDS = ['password', 'isActive', 'roles'] as const;

/**
 * What identity checks and does around writes to users and roles through the generic CRUD: who may
 * grant what (`GrantPolicy`), and the end of sessions an account change implies — a user's password,
 * activation or roles changed, or the user deleted; a role's permissions changed or the role deleted
 * (every holder): their refresh tokens are revoked and their live access tokens denylisted in the same
 * transaction, then published on the bus (every service refuses them within the revocation latency).
 */
@Injectable()
export class IdentityWriteHooks extends CrudWriteHooks {
  private readonly pending = new WeakMap<CrudWrite, { entries: RevocationEntry[]; tenantId: string }>();

  constructor(
    @Inject(GrantPolicy) private readonly grants: GrantPolicy,
    @Inject(TokenService) private readonly tokens: TokenService,
    @Inject(UserRepository) private readonly users: UserRepository,
    @Inject(RoleRepository) private readonly roles: RoleRepository,
  ) {
    super();
  }

  async before(def: EntityDefinition, write: CrudWrite, m: EntityManager): Promise<void> {
    if (def.table === 'auth_users') await this.grants.checkUserWrite(write, m);
    if (def.table === 'auth_roles') {
      await this.grants.checkRoleWrite(write, m);
      // the holders are read before a delete hides the role
      if (write.mode === 'delete' || (write.mode === 'update' && write.dto?.permissions !== undefined)) {
        const role = await this.roles.findById(m, write.id!);
        if (role) this.affected.set(write, await this.users.idsWithRole(m, role.name));
      }
    }
  }

  private readonly affected = new WeakMap<CrudWrite, string[]>();

  async after(def: EntityDefinition, write: CrudWrite, m: EntityManager): Promise<void> {
    let userIds: string[] = [];
    let reason = '';
    if (def.table === 'auth_users' && write.mode !== 'create') {
      const changed = write.mode === 'delete' || SESSION_FIELDS.some((f) => write.dto?.[f] !== undefined);
      if (changed) {
        userIds = [write.id!];
        reason = write.mode === 'delete' ? 'UserDeleted' : 'AccountChanged';
      }
    }
    if (def.table === 'auth_roles') {
      userIds = this.affected.get(write) ?? [];
      reason = write.mode === 'delete' ? 'RoleDeleted' : 'RoleChanged';
    }
    if (userIds.length === 0) return;
    const entries = await this.tokens.endUserSessions(m, userIds, reason);
    this.pending.set(write, { entries, tenantId: RequestContext.tenantId() });
  }

  async committed(_def: EntityDefinition, write: CrudWrite): Promise<void> {
    const done = this.pending.get(write);
    if (done && done.entries.length > 0) await this.tokens.publish(done.entries, done.tenantId);
  }
}
