import { AppError, RequestContext, UnitOfWork } from '@arbiter/platform';
import { Inject, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { bindingOf, CatalogGraph, EndpointBinding, EXECUTE_PATH_TEMPLATE, graphOf } from '../domain/bindings';
import { buildFlowModel } from '../domain/flow-model';
import { UiCatalogSnapshotEntity } from '../persistence/snapshot.entity';
import { SnapshotSummary, UiCatalogSnapshotRepository } from '../persistence/snapshot.repository';
import { ApiRouteCatalog } from './api-routes';
import { CatalogErrors } from './errors';
import { WorkflowDocuments } from './workflow-documents';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The UI catalog: the API list, endpoint-to-rule bindings, the binding graph and captured snapshots. */
@Injectable()
export class UiCatalogService {
  constructor(
    @Inject(UnitOfWork) private readonly uow: UnitOfWork,
    @Inject(WorkflowDocuments) private readonly workflows: WorkflowDocuments,
    @Inject(ApiRouteCatalog) private readonly routes: ApiRouteCatalog,
    @Inject(UiCatalogSnapshotRepository) private readonly snapshotRows: UiCatalogSnapshotRepository,
  ) {}

  apis() {
    const apis = this.routes.list();
    return { apis, total: apis.length };
  }

  /** One binding per workflow of the tenant with an active version (what its execute endpoint runs). */
  async currentBindings(): Promise<EndpointBinding[]> {
    const stored = await this.workflows.allActiveOrLatest();
    return stored
      .filter((w) => w.activeVersion !== null && w.version === w.activeVersion)
      .map((w) => bindingOf(w.workflowName, w.version, buildFlowModel(w.document, w.shape)));
  }

  async bindings() {
    const bindings = await this.currentBindings();
    return this.envelope({ pathTemplate: EXECUTE_PATH_TEMPLATE, bindings, total: bindings.length });
  }

  async graph(): Promise<CatalogGraph & { tenantId: string; generatedAt: string }> {
    return this.envelope(graphOf(await this.currentBindings()));
  }

  /** Persists the current bindings and graph as a snapshot of the tenant. */
  async capture(label: string | null, actorInput?: string | null) {
    const bindings = await this.currentBindings();
    const graph = graphOf(bindings);
    const row: UiCatalogSnapshotEntity = {
      id: randomUUID(),
      tenantId: RequestContext.tenantId(),
      capturedAt: new Date(),
      capturedBy: RequestContext.actor(actorInput),
      label,
      bindingCount: bindings.length,
      nodeCount: graph.nodes.length,
      edgeCount: graph.edges.length,
      bindings,
      graph,
    };
    await this.uow.run((m) => this.snapshotRows.insert(m, row));
    return this.view(row, true);
  }

  /** The tenant's snapshots, newest first (summaries: counts, no content). */
  async snapshots(limit: number, offset: number) {
    const [rows, total] = await this.uow.run((m) => this.snapshotRows.page(m, limit, offset));
    return { items: rows.map((r) => this.view(r, false)), total, limit, offset };
  }

  async snapshot(id: string) {
    const row = UUID.test(id) ? await this.uow.run((m) => this.snapshotRows.find(m, id)) : null;
    if (!row) throw AppError.notFound(CatalogErrors.SnapshotNotFound, `Snapshot '${id}' not found`);
    return this.view(row, true);
  }

  private view(row: SnapshotSummary & Partial<UiCatalogSnapshotEntity>, withContent: boolean) {
    return {
      id: row.id,
      tenantId: row.tenantId,
      capturedAt: new Date(row.capturedAt).toISOString(),
      capturedBy: row.capturedBy,
      label: row.label,
      bindingCount: row.bindingCount,
      nodeCount: row.nodeCount,
      edgeCount: row.edgeCount,
      ...(withContent ? { bindings: row.bindings, graph: row.graph } : {}),
    };
  }

  private envelope<T extends object>(body: T) {
    return { tenantId: RequestContext.tenantId(), generatedAt: new Date().toISOString(), ...body };
  }
}
