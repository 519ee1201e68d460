import { Inject, Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { CrudWrite, CrudWriteHooks, EntityDefinition } from '../crud';
import { GrantPolicy } from './grant-policy';

/** What identity checks and does around writes to users and roles through the generic CRUD. */
@Injectable()
export class IdentityWriteHooks extends CrudWriteHooks {
  constructor(@Inject(GrantPolicy) private readonly grants: GrantPolicy) {
    super();
  }

  async before(def: EntityDefinition, write: CrudWrite, m: EntityManager): Promise<void> {
    if (def.table === 'auth_users') await this.grants.checkUserWrite(write, m);
    if (def.table === 'auth_roles') await this.grants.checkRoleWrite(write, m);
  }

  async after(): Promise<void> {}

  async committed(): Promise<void> {}
}
