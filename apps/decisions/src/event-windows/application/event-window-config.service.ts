import { Subjects } from '@arbiter/contracts';
import {
  AppError,
  EventBus,
  EventSubscription,
  isUniqueViolation,
  RequestContext,
  UnitOfWork,
} from '@arbiter/platform';
import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { EventWindowErrors as E } from '../errors';
import type { EventWindowConfigBody } from '../http/dto';
import { EventWindowConfigEntity } from '../persistence/entities';
import { EventWindowConfigRepository } from '../persistence/event-window-config.repository';
import { checkConfigId, configFields, configView } from './config-model';
import { EventWindowMetrics } from './metrics';

/**
 * How long a simulate may reuse a configuration it read (`loadForSimulate`). A change on any replica drops it
 * at once through `arbiter.event-window.changed`; the time bound covers a change event that never arrived.
 */
export const SIMULATE_CONFIG_REUSE_MS = 2000;

/** Event-window configurations per tenant (spec 2): list, get, save (create or update), delete. */
@Injectable()
export class EventWindowConfigService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('EventWindows');
  /** Configurations read for simulate, by tenant and id (see `loadForSimulate`). */
  private readonly reused = new Map<string, { entity: EventWindowConfigEntity; until: number }>();
  /** Bumped by every change: a read that started before a change does not store what it read. */
  private generation = 0;
  private subscription: EventSubscription | undefined;

  constructor(
    @Inject(UnitOfWork) private readonly uow: UnitOfWork,
    @Inject(EventWindowConfigRepository) private readonly repo: EventWindowConfigRepository,
    @Inject(EventBus) private readonly bus: EventBus,
    @Inject(EventWindowMetrics) private readonly metrics: EventWindowMetrics,
  ) {}

  async onApplicationBootstrap() {
    this.subscription = await this.bus.subscribe(Subjects.EventWindowChanged, (e) =>
      this.forget(e.data.tenantId, e.data.configId),
    );
  }

  async onApplicationShutdown() {
    await this.subscription?.unsubscribe().catch(() => undefined);
  }

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

  /**
   * `load` for `POST /{id}/simulate`, which is called in bursts against one configuration: the configuration
   * read within the last `SIMULATE_CONFIG_REUSE_MS` is reused (per tenant and id; another tenant's id is still
   * a 404 read from the database). A save or delete on this replica drops it before it answers, one on
   * another replica when its change event arrives. `GET /{id}` always reads the database.
   */
  async loadForSimulate(id: string): Promise<EventWindowConfigEntity> {
    checkConfigId(id);
    const tenantId = RequestContext.tenantId();
    const key = reuseKey(tenantId, id);
    const held = this.reused.get(key);
    if (held && held.until > Date.now()) {
      this.metrics.read();
      return held.entity;
    }
    const generation = this.generation;
    const entity = await this.load(id, tenantId);
    if (generation === this.generation) {
      if (this.reused.size >= 10_000) this.reused.clear();
      this.reused.set(key, { entity, until: Date.now() + SIMULATE_CONFIG_REUSE_MS });
    }
    return entity;
  }

  private forget(tenantId: string, id: string) {
    this.generation++;
    this.reused.delete(reuseKey(tenantId, id));
  }

  /** `PUT /{id}`: creates the configuration (201) or replaces it (200, version + 1). */
  async save(id: string, body: EventWindowConfigBody) {
    checkConfigId(id);
    const tenantId = RequestContext.tenantId();
    const fields = configFields(body, tenantId);
    const now = new Date();
    const write = () =>
      this.uow.run(async (m) => {
        const existing = await this.repo.findForUpdate(m, tenantId, id);
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
    // the row is locked while it is read and written, so saves of an existing id queue up; two creates of a new
    // id meet at the primary key instead: the one that lost takes the saved row as an update
    const saved = await write().catch((error: unknown) => {
      if (isUniqueViolation(error)) return write();
      throw error;
    });
    const change = saved.created ? 'created' : 'updated';
    this.forget(tenantId, id);
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
    this.forget(tenantId, id);
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

const reuseKey = (tenantId: string, id: string) => `${tenantId}\u0000${id}`;
