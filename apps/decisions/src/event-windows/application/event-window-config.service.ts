import { Subjects } from '@arbiter/contracts';
import { AppError, EventBus, RequestContext, UnitOfWork } from '@arbiter/platform';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { EventWindowErrors as E } from '../errors';
import type { EventWindowConfigBody } from '../http/dto';
import { EventWindowConfigEntity } from '../persistence/entities';
import { EventWindowConfigRepository } from '../persistence/event-window-config.repository';
import { checkConfigId, configFields, configView } from './config-model';
import { EventWindowMetrics } from './metrics';

/** Event-window configurations per tenant (spec 2): list, get, save (create or update), delete. */
@Injectable()
export class EventWindowConfigService {
  private readonly logger = new Logger('EventWindows');

  constructor(
    @Inject(UnitOfWork) private readonly uow: UnitOfWork,
    @Inject(EventWindowConfigRepository) private readonly repo: EventWindowConfigRepository,
    @Inject(EventBus) private readonly bus: EventBus,
    @Inject(EventWindowMetrics) private readonly metrics: EventWindowMetrics,
  ) {}

  async list() {
    this.metrics.read();
    return (await this.uow.run((m) => this.repo.list(m))).map(configView);
  }

  async get(id: string) {
    return configView(await this.load(id));
  }

  /** The stored configuration of the caller's tenant; 404 for an unknown id and for another tenant's. */
  async load(id: string, tenantId = RequestContext.tenantId()): Promise<EventWindowConfigEntity> {
    checkConfigId(id);
    this.metrics.read();
    const found = await this.uow.run((m) => this.repo.find(m, tenantId, id), { tenantId });
    if (!found)
      throw AppError.notFound(E.ConfigNotFound, `Event-window configuration '${id}' does not exist`);
    return found;
  }

  /** `PUT /{id}`: creates the configuration (201) or replaces it (200, version + 1). */
  async save(id: string, body: EventWindowConfigBody) {
    checkConfigId(id);
    const tenantId = RequestContext.tenantId();
    const fields = configFields(body, tenantId);
    const now = new Date();
    const saved = await this.uow.run(async (m) => {
      const existing = await this.repo.find(m, tenantId, id);
      const entity: EventWindowConfigEntity = {
        tenantId,
        id,
        ...fields,
        version: (existing?.version ?? 0) + 1,
        createdAt: existing?.createdAt ?? now,
        modifiedAt: now,
      };
      if (existing) await this.repo.update(m, entity);
      else await this.repo.insert(m, entity);
      return { entity, created: !existing };
    });
    const change = saved.created ? 'created' : 'updated';
    this.metrics.wrote(change);
    await this.publish(id, tenantId, saved.entity.version, change);
    return { created: saved.created, view: configView(saved.entity) };
  }

  async delete(id: string): Promise<void> {
    checkConfigId(id);
    const tenantId = RequestContext.tenantId();
    const deleted = await this.uow.run((m) => this.repo.delete(m, tenantId, id));
    if (!deleted)
      throw AppError.notFound(E.ConfigNotFound, `Event-window configuration '${id}' does not exist`);
    this.metrics.wrote('deleted');
    await this.publish(id, tenantId, null, 'deleted');
  }

  private async publish(
    configId: string,
    tenantId: string,
    version: number | null,
    change: 'created' | 'updated' | 'deleted',
  ) {
    try {
      await this.bus.publish(
        Subjects.EventWindowChanged,
        { configId, tenantId, version, change, occurredAt: new Date().toISOString() },
        { tenantId },
      );
    } catch (error) {
      this.logger.warn({ msg: 'event-window change event not published', configId, err: String(error) });
    }
  }
}
