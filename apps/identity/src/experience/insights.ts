import { AppError, UnitOfWork } from '@arbiter/platform';
import { Inject, Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { ExperienceErrors, experienceError } from './experience-errors';
import { keywords } from './models/embedding';
import { EdgeType, ExperienceRepository } from './persistence/experience.repository';
import { FILE_STORE, FileStore } from './stores/file-store';
import { VectorStore } from './stores/vector-store';

export const EDGE_TYPES: EdgeType[] = ['generalizes', 'relates-to', 'supersedes'];

/** Stats, gates, graph and timeline: read-only views of the store. */
@Injectable()
export class Insights {
  constructor(
    @Inject(UnitOfWork) private readonly uow: UnitOfWork,
    @Inject(ExperienceRepository) private readonly repository: ExperienceRepository,
    @Inject(VectorStore) private readonly vectors: VectorStore,
    @Inject(FILE_STORE) private readonly files: FileStore,
  ) {}

  private read<T>(work: (m: EntityManager) => Promise<T>): Promise<T> {
    return this.uow.run(work).catch((error: Error) => {
      if (error instanceof AppError) throw error;
      throw experienceError.vectorDbDown(error.message);
    });
  }

  async stats() {
    const s = await this.read((m) => this.repository.stats(m));
    const judged = s.verdicts.followed + s.verdicts.ignored + s.verdicts.irrelevant;
    const per = s.perSession;
    return {
      hitRate: judged ? round(s.verdicts.followed / judged) : 0,
      interceptionRate: s.total ? round(s.withSuggestions / s.total) : 0,
      totalInterceptions: s.total,
      verdicts: s.verdicts,
      mistakesAvoided: s.avoided,
      velocityPerSession: {
        avg: per.length ? round(per.reduce((a, b) => a + b, 0) / per.length) : 0,
        min: per.length ? Math.min(...per) : 0,
        max: per.length ? Math.max(...per) : 0,
      },
      knowledge: s.tiers,
      timestamp: new Date().toISOString(),
    };
  }

  async gates() {
    const [vector, file] = await Promise.all([this.vectors.ping(), this.files.ping()]);
    const collections = vector.ok
      ? await this.uow.run((m) => this.repository.collections(m)).catch(() => null)
      : null;
    const queue = vector.ok
      ? await this.uow.run((m) => this.repository.queueState(m)).catch(() => null)
      : null;
    const usage = file.ok ? await this.files.usage().catch(() => null) : null;
    const vectordbHealthy = vector.ok && collections !== null;
    return {
      ready: vectordbHealthy && file.ok,
      vectordb: {
        available: vector.ok,
        healthy: vectordbHealthy,
        collections: collections?.length ?? 0,
        vectorsIndexed: collections?.reduce((sum, c) => sum + c.entries, 0) ?? 0,
        engine: this.vectors.kind,
        hotPath: this.vectors.hotPath,
        dimensions: Object.fromEntries((collections ?? []).map((c) => [c.name, c.dimension])),
      },
      fileStore: {
        available: file.ok,
        healthy: file.ok && usage !== null,
        fileCount: usage?.fileCount ?? 0,
        diskUsageMb: usage ? round(usage.bytes / 1024 / 1024) : 0,
        kind: this.files.kind,
      },
      judge: { queueLength: queue?.queued ?? 0, processingRate: queue?.doneLastMinute ?? 0 },
      timestamp: new Date().toISOString(),
    };
  }

  async graph(id: string, typesParam: string | undefined) {
    const types = typesParam
      ? [
          ...new Set(
            typesParam
              .split(',')
              .map((t) => t.trim())
              .filter(Boolean),
          ),
        ]
      : EDGE_TYPES;
    const bad = types.filter((t) => !EDGE_TYPES.includes(t as EdgeType));
    if (bad.length || !types.length) {
      throw AppError.badRequest(
        ExperienceErrors.EdgeTypeInvalid,
        `Unknown edge type(s): ${bad.join(', ') || '(none)'}; use ${EDGE_TYPES.join(', ')}`,
      );
    }
    return this.read(async (m) => {
      const entry = await this.repository.byId(m, id);
      if (!entry) throw experienceError.entryNotFound(id);
      const edges = await this.repository.edges(m, id, types as EdgeType[]);
      return {
        id: entry.id,
        text: entry.text,
        edges: (types as EdgeType[])
          .map((type) => ({
            type,
            targets: edges
              .filter((e) => e.type === type)
              .map((e) => ({ id: e.id, text: e.text, status: e.status, direction: e.direction })),
          }))
          .filter((e) => e.targets.length),
      };
    });
  }

  async timeline(topic: string, limit: number) {
    const words = keywords(topic);
    const terms = words.length ? words : [topic.toLowerCase().trim()];
    const events = await this.read((m) => this.repository.timeline(m, terms, limit));
    return {
      topic,
      events: events.map((e) => {
        const p = e.payload ?? {};
        return {
          timestamp: new Date(e.created_at).toISOString(),
          type: e.type,
          id: e.entry_id,
          text: e.text,
          tier: e.tier,
          verdict_distribution: p.verdict_distribution ?? null,
          from: p.from ?? null,
          to: p.to ?? null,
          reason: p.reason ?? null,
          generalizesCount: p.generalizesCount ?? null,
          supersedesId: p.supersedesId ?? null,
          principle: p.principle ?? null,
        };
      }),
    };
  }
}

const round = (x: number) => Math.round(x * 1000) / 1000;
