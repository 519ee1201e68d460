import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { EventWindowConfigEntity } from './entities';

/** Storage of event-window configurations. Every method runs inside the caller's unit of work (RLS). */
export abstract class EventWindowConfigRepository {
  abstract list(m: EntityManager): Promise<EventWindowConfigEntity[]>;
  abstract find(m: EntityManager, tenantId: string, id: string): Promise<EventWindowConfigEntity | null>;
  /** `find`, the row locked until the caller's transaction ends (concurrent saves of one id queue up). */
  abstract findForUpdate(
    m: EntityManager,
    tenantId: string,
    id: string,
  ): Promise<EventWindowConfigEntity | null>;
  abstract insert(m: EntityManager, config: EventWindowConfigEntity): Promise<void>;
  abstract update(m: EntityManager, config: EventWindowConfigEntity): Promise<void>;
  abstract delete(m: EntityManager, tenantId: string, id: string): Promise<number>;
}

@Injectable()
export class TypeOrmEventWindowConfigRepository extends EventWindowConfigRepository {
  list(m: EntityManager) {
    return m.getRepository(EventWindowConfigEntity).find({ order: { name: 'ASC', id: 'ASC' } });
  }
  find(m: EntityManager, tenantId: string, id: string) {
    return m.getRepository(EventWindowConfigEntity).findOne({ where: { tenantId, id } });
  }
  findForUpdate(m: EntityManager, tenantId: string, id: string) {
    return m
      .getRepository(EventWindowConfigEntity)
      .findOne({ where: { tenantId, id }, lock: { mode: 'pessimistic_write' } });
  }
  async insert(m: EntityManager, config: EventWindowConfigEntity) {
    await m.getRepository(EventWindowConfigEntity).insert(config);
  }
  async update(m: EntityManager, config: EventWindowConfigEntity) {
    const { id, tenantId, ...rest } = config;
    await m.getRepository(EventWindowConfigEntity).update({ id, tenantId }, rest);
  }
  async delete(m: EntityManager, tenantId: string, id: string) {
    return (await m.getRepository(EventWindowConfigEntity).delete({ tenantId, id })).affected ?? 0;
  }
}
