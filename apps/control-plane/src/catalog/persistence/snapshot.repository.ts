import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { UiCatalogSnapshotEntity } from './snapshot.entity';

/** A snapshot without its content (bindings and graph): what a list shows. */
export type SnapshotSummary = Omit<UiCatalogSnapshotEntity, 'bindings' | 'graph'>;

/**
 * Captured UI catalog snapshots (`ui_catalog_snapshots`), inside the caller's unit of work (row-level
 * security: the unit of work's tenant). The only place that reads or writes the table.
 */
@Injectable()
export class UiCatalogSnapshotRepository {
  async insert(m: EntityManager, snapshot: UiCatalogSnapshotEntity): Promise<void> {
    await m.getRepository(UiCatalogSnapshotEntity).insert(snapshot);
  }

  /** A page of the tenant's snapshots, newest first, without their content; and how many there are. */
  page(m: EntityManager, limit: number, offset: number): Promise<[SnapshotSummary[], number]> {
    return m.getRepository(UiCatalogSnapshotEntity).findAndCount({
      select: {
        id: true,
        tenantId: true,
        capturedAt: true,
        capturedBy: true,
        label: true,
        bindingCount: true,
        nodeCount: true,
        edgeCount: true,
      },
      order: { capturedAt: 'DESC', id: 'DESC' },
      skip: offset,
      take: limit,
    });
  }

  find(m: EntityManager, id: string): Promise<UiCatalogSnapshotEntity | null> {
    return m.getRepository(UiCatalogSnapshotEntity).findOne({ where: { id } });
  }
}
