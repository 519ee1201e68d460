import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import type { IsolationLevel } from 'typeorm/driver/types/IsolationLevel';
import { RequestContext } from '../context/request-context';
import { Database } from './database';
import { allTenantsReaderRole } from './tenant-isolation';

export interface UnitOfWorkOptions {
  /** Defaults to the ambient request context's tenant. */
  tenantId?: string;
  isolation?: IsolationLevel;
  /**
   * Administrators' and background jobs' cross-tenant reads (e.g. the global audit): the transaction
   * runs as the cross-tenant reader role (`allTenantsReaderRole`), which reads every tenant's rows and
   * cannot write. The application role itself has no way to lift the tenant filter.
   */
  acrossTenants?: boolean;
}

/**
 * One transaction = one unit of work, running as the application role with the tenant set
 * transaction-locally (`set_config(…, true)`), so row-level security applies to every statement and
 * nothing leaks to the next user of the pooled connection. Repositories take the manager it passes.
 */
@Injectable()
export class UnitOfWork {
  constructor(private readonly database: Database) {}

  run<T>(work: (manager: EntityManager) => Promise<T>, options: UnitOfWorkOptions = {}): Promise<T> {
    const context = RequestContext.current();
    const tenantId = options.tenantId ?? context?.tenantId ?? 'default';
    const execute = async (manager: EntityManager) => {
      // One round trip: `set_config('role', …, true)` is `SET LOCAL ROLE`, with the role as a parameter.
      await manager.query(
        `SELECT set_config('role', $1, true), set_config('app.tenant_id', $2, true),
                set_config('app.actor', $3, true), set_config('app.correlation_id', $4, true)`,
        [
          options.acrossTenants
            ? allTenantsReaderRole(this.database.applicationRole)
            : this.database.applicationRole,
          tenantId,
          RequestContext.actorLabel(),
          context?.correlationId ?? '',
        ],
      );
      return work(manager);
    };
    const ds = this.database.dataSource;
    return options.isolation ? ds.transaction(options.isolation, execute) : ds.transaction(execute);
  }
}
