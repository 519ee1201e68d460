import {
  AppError,
  EmbeddingsUnavailableError,
  OpenAiCompatibleEmbeddings,
  type TextEmbedder,
} from '@arbiter/platform';
import { LOCAL_EMBEDDING_NAME, canonicalJson, type KeepDistinctTask } from '@arbiter/scenarios';
import { Inject, Injectable } from '@nestjs/common';
import { ScenarioErrors as E } from '../errors';
import { ScenariosSettings } from '../../settings';
import { ScenarioWorkers } from './scenario-workers';

type Facts = Record<string, unknown>;

/** texts per embeddings request */
const BATCH = 128;

/**
 * Near-duplicate removal by vector similarity (`Scenarios:SimilarityThreshold` > 0). The vectors come from
 * the OpenAI-compatible embeddings endpoint of `Scenarios:EmbeddingBaseUrl` (the platform's client, the one
 * the experience service uses), fed the canonical JSON of each scenario's input facts; without one, from
 * the local feature-hashing embedding of the facts (no model). Plans record which one answered
 * (`embeddingModelUsed`). A configured endpoint that fails is a 502 `EMBEDDING_MODEL_FAILED`: nothing is
 * stored, and no local vector stands in for the model's. The HTTP calls are the service's (async I/O); the
 * local embedding and the comparison of every pair run on a scenario worker thread.
 */
@Injectable()
export class ScenarioSimilarity {
  private readonly remote: TextEmbedder | null;

  constructor(
    @Inject(ScenariosSettings) private readonly settings: ScenariosSettings,
    @Inject(ScenarioWorkers) private readonly workers: ScenarioWorkers,
  ) {
    this.remote = settings.embeddingBaseUrl
      ? new OpenAiCompatibleEmbeddings({
          baseUrl: settings.embeddingBaseUrl,
          model: settings.embeddingModel,
          apiKey: settings.embeddingApiKey,
          timeoutMs: settings.aiTimeoutMs,
        })
      : null;
  }

  /** whether near duplicates are removed at all */
  get enabled(): boolean {
    return this.settings.similarityThreshold > 0;
  }

  /** the embedding that answers (null when near duplicates are not removed) */
  get embeddingName(): string | null {
    if (!this.enabled) return null;
    return this.remote ? this.remote.name : LOCAL_EMBEDDING_NAME;
  }

  /** Indexes (after the `against` leading ones) of the facts that are not near duplicates. */
  private async distinct(facts: Facts[], against: number): Promise<number[]> {
    const entries: Pick<KeepDistinctTask, 'facts' | 'vectors'> = this.remote
      ? { vectors: await this.vectors(this.remote, facts) }
      : { facts };
    return this.workers.keepDistinct({ ...entries, threshold: this.settings.similarityThreshold, against });
  }

  private async vectors(remote: TextEmbedder, facts: Facts[]): Promise<ArrayLike<number>[]> {
    const out: ArrayLike<number>[] = [];
    try {
      for (let i = 0; i < facts.length; i += BATCH)
        out.push(...(await remote.embed(facts.slice(i, i + BATCH).map((f) => canonicalJson(f)))));
    } catch (error) {
      if (error instanceof EmbeddingsUnavailableError)
        throw new AppError(
          502,
          E.EmbeddingModelFailed,
          `The embeddings endpoint (Scenarios:EmbeddingBaseUrl, model ${this.settings.embeddingModel}) failed: ${error.message}`,
        );
      throw error;
    }
    return out;
  }

  /**
   * Generated scenarios without the near duplicates among their pairwise combinations (boundary, MC/DC and
   * path scenarios sit near each other on purpose and are all kept).
   */
  async thinGenerated<T extends { type: string; inputFacts: Facts }>(
    scenarios: T[],
  ): Promise<{ scenarios: T[]; removed: number }> {
    if (!this.enabled) return { scenarios, removed: 0 };
    const pairwise = scenarios.filter((s) => s.type === 'Pairwise');
    if (pairwise.length < 2) return { scenarios, removed: 0 };
    const kept = new Set(
      (
        await this.distinct(
          pairwise.map((s) => s.inputFacts),
          0,
        )
      ).map((i) => pairwise[i]),
    );
    return {
      scenarios: scenarios.filter((s) => s.type !== 'Pairwise' || kept.has(s)),
      removed: pairwise.length - kept.size,
    };
  }

  /** Which proposals are not near duplicates of the existing scenarios or of a proposal kept before them. */
  async distinctProposals(existing: Facts[], proposals: Facts[]): Promise<boolean[]> {
    if (!this.enabled || proposals.length === 0) return proposals.map(() => true);
    const kept = new Set(await this.distinct([...existing, ...proposals], existing.length));
    return proposals.map((_, i) => kept.has(i));
  }
}
