import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { CatalogGraph, EndpointBinding } from '../domain/bindings';

/** One captured UI catalog snapshot (bindings + graph) of a tenant. */
@Entity({ name: 'ui_catalog_snapshots' })
export class UiCatalogSnapshotEntity {
  @PrimaryColumn({ type: 'uuid' })
  id!: string;

  @Column({ name: 'tenant_id', type: 'text' })
  tenantId!: string;

  @Column({ name: 'captured_at', type: 'timestamptz' })
  capturedAt!: Date;

  @Column({ name: 'captured_by', type: 'text' })
  capturedBy!: string;

  @Column({ type: 'text', nullable: true })
  label!: string | null;

  @Column({ name: 'binding_count', type: 'int' })
  bindingCount!: number;

  @Column({ name: 'node_count', type: 'int' })
  nodeCount!: number;

  @Column({ name: 'edge_count', type: 'int' })
  edgeCount!: number;

  @Column({ type: 'jsonb' })
  bindings!: EndpointBinding[];

  @Column({ type: 'jsonb' })
  graph!: CatalogGraph;
}
