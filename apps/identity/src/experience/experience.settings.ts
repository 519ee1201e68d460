import { ConfigKey, ConfigurationError, StartupRules } from '@arbiter/platform';
import { IsBoolean, IsIn, IsInt, IsNumber, IsString, Max, Min } from 'class-validator';

/**
 * `Experience:*`: the experience service (spec 3 part C). Every threshold of ranking and evolution is
 * here, documented in apps/identity/README.md ("Experience service").
 */
export class ExperienceSettings implements StartupRules {
  /** `serverAuthToken`: when set, every experience route wants `Authorization: Bearer <token>`. */
  @ConfigKey('Experience:ServerAuthToken')
  @IsString()
  serverAuthToken: string = '';

  /** Requests per minute per client address without a token / with the configured token. */
  @ConfigKey('Experience:RateLimitPerMinute')
  @IsInt()
  @Min(1)
  rateLimitPerMinute: number = 100;

  @ConfigKey('Experience:RateLimitPerMinuteWithToken')
  @IsInt()
  @Min(1)
  rateLimitPerMinuteWithToken: number = 500;

  /** `auto`: pgvector (HNSW) when the database has the extension, else exact in-process search. */
  @ConfigKey('Experience:VectorStore')
  @IsIn(['auto', 'pgvector', 'exact'])
  vectorStore: string = 'auto';

  /** Where intercept searches: `memory` (exact, in-process, default) or `database` (pgvector HNSW, when present). */
  @ConfigKey('Experience:HotPathIndex')
  @IsIn(['memory', 'database'])
  hotPathIndex: string = 'memory';

  /** The file store's directory (transcripts, exports); empty: `<tmp>/arbiter-experience-files`. */
  @ConfigKey('Experience:FileStoreDir')
  @IsString()
  fileStoreDir: string = '';

  /** `local`: hashed word and character n-grams (no download); `openai`: an OpenAI-compatible `/v1/embeddings`. */
  @ConfigKey('Experience:EmbeddingProvider')
  @IsIn(['local', 'openai'])
  embeddingProvider: string = 'local';

  /** Dimension of the local embedder (an OpenAI-compatible provider reports its own). */
  @ConfigKey('Experience:LocalEmbeddingDimension')
  @IsInt()
  @Min(32)
  @Max(4096)
  localEmbeddingDimension: number = 256;

  @ConfigKey('Experience:EmbeddingBaseUrl')
  @IsString()
  embeddingBaseUrl: string = '';

  @ConfigKey('Experience:EmbeddingModel')
  @IsString()
  embeddingModel: string = '';

  @ConfigKey('Experience:EmbeddingApiKey')
  @IsString()
  embeddingApiKey: string = '';

  /** An OpenAI-compatible chat endpoint base (`…/v1`) for brain, extraction, judge and routing fallback. */
  @ConfigKey('Experience:ChatBaseUrl')
  @IsString()
  chatBaseUrl: string = '';

  @ConfigKey('Experience:ChatModel')
  @IsString()
  chatModel: string = '';

  @ConfigKey('Experience:ChatApiKey')
  @IsString()
  chatApiKey: string = '';

  @ConfigKey('Experience:ModelTimeoutMs')
  @IsInt()
  @Min(100)
  modelTimeoutMs: number = 20_000;

  /** Entries in the model response cache (LRU). */
  @ConfigKey('Experience:ModelCacheSize')
  @IsInt()
  @Min(0)
  modelCacheSize: number = 500;

  /** Approximate token cap of the injected suggestion text (4 characters a token). */
  @ConfigKey('Experience:TokenCap')
  @IsInt()
  @Min(50)
  tokenCap: number = 1500;

  /** Minimum relevance (0..1) a candidate needs to be suggested. */
  @ConfigKey('Experience:RelevanceThreshold')
  @IsNumber()
  @Min(0)
  @Max(1)
  relevanceThreshold: number = 0.35;

  /** Suggestions at most in one intercept answer. */
  @ConfigKey('Experience:MaxSuggestions')
  @IsInt()
  @Min(1)
  @Max(20)
  maxSuggestions: number = 3;

  /** Cosine similarity above which two entries are near-duplicates (never both in one answer; merged on extract). */
  @ConfigKey('Experience:DuplicateSimilarity')
  @IsNumber()
  @Min(0)
  @Max(1)
  duplicateSimilarity: number = 0.9;

  /**
   * Cosine similarity above which two suggestions count as the same advice in one answer (only the better
   * ranked one is shown). Lower than `DuplicateSimilarity`: paraphrases are kept as entries (their
   * evidence may differ) but never shown twice.
   */
  @ConfigKey('Experience:AnswerDuplicateSimilarity')
  @IsNumber()
  @Min(0)
  @Max(1)
  answerDuplicateSimilarity: number = 0.75;

  /** Cosine similarity above which entries join one cluster during `evolve` (a principle per cluster). */
  @ConfigKey('Experience:ClusterSimilarity')
  @IsNumber()
  @Min(0)
  @Max(1)
  clusterSimilarity: number = 0.4;

  /** Smallest cluster that becomes a principle. */
  @ConfigKey('Experience:ClusterMinSize')
  @IsInt()
  @Min(2)
  clusterMinSize: number = 3;

  /** Promotion T3→T2: at least this many `followed` verdicts and confidence at least `PromoteT2Confidence`. */
  @ConfigKey('Experience:PromoteT2Followed')
  @IsInt()
  @Min(1)
  promoteT2Followed: number = 2;

  @ConfigKey('Experience:PromoteT2Confidence')
  @IsNumber()
  promoteT2Confidence: number = 0.5;

  @ConfigKey('Experience:PromoteT1Followed')
  @IsInt()
  @Min(1)
  promoteT1Followed: number = 5;

  @ConfigKey('Experience:PromoteT1Confidence')
  @IsNumber()
  promoteT1Confidence: number = 0.7;

  @ConfigKey('Experience:PromoteT0Followed')
  @IsInt()
  @Min(1)
  promoteT0Followed: number = 12;

  @ConfigKey('Experience:PromoteT0Confidence')
  @IsNumber()
  promoteT0Confidence: number = 0.85;

  /** Largest share of `ignored + irrelevant` among verdicts that still allows a promotion. */
  @ConfigKey('Experience:PromoteMaxNegativeShare')
  @IsNumber()
  @Min(0)
  @Max(1)
  promoteMaxNegativeShare: number = 0.25;

  /** `ignored` verdicts that archive an entry. */
  @ConfigKey('Experience:ArchiveAfterIgnores')
  @IsInt()
  @Min(1)
  archiveAfterIgnores: number = 3;

  /** Judge worker poll interval and batch size. */
  @ConfigKey('Experience:JudgeIntervalMs')
  @IsInt()
  @Min(10)
  judgeIntervalMs: number = 250;

  @ConfigKey('Experience:JudgeBatchSize')
  @IsInt()
  @Min(1)
  judgeBatchSize: number = 200;

  /** Run the judge worker in this process (off for API-only replicas). */
  @ConfigKey('Experience:JudgeEnabled')
  @IsBoolean()
  judgeEnabled: boolean = true;

  /** `pil-context` cache lifetime (seconds) and size. */
  @ConfigKey('Experience:ContextCacheSeconds')
  @IsInt()
  @Min(1)
  contextCacheSeconds: number = 300;

  @ConfigKey('Experience:ContextCacheSize')
  @IsInt()
  @Min(1)
  contextCacheSize: number = 1000;

  /** Keyword/semantic route confidence under which a configured model decides (route-model/route-task). */
  @ConfigKey('Experience:RoutingModelFallbackBelow')
  @IsNumber()
  @Min(0)
  @Max(1)
  routingModelFallbackBelow: number = 0.5;

  assertStartupRules(): void {
    if (this.embeddingProvider === 'openai' && (!this.embeddingBaseUrl || !this.embeddingModel)) {
      throw new ConfigurationError(
        'Experience:EmbeddingProvider openai needs Experience:EmbeddingBaseUrl and Experience:EmbeddingModel',
        ['Experience:EmbeddingBaseUrl', 'Experience:EmbeddingModel'],
      );
    }
    if (this.chatBaseUrl && !this.chatModel) {
      throw new ConfigurationError('Experience:ChatBaseUrl needs Experience:ChatModel', [
        'Experience:ChatModel',
      ]);
    }
    for (const [key, url] of [
      ['Experience:EmbeddingBaseUrl', this.embeddingBaseUrl],
      ['Experience:ChatBaseUrl', this.chatBaseUrl],
    ] as const) {
      if (url && !/^https?:\/\/[^\s]+$/.test(url)) {
        throw new ConfigurationError(`${key} must be an http(s) URL`, [key]);
      }
    }
    if (this.serverAuthToken && this.serverAuthToken.length < 16) {
      throw new ConfigurationError('Experience:ServerAuthToken must be at least 16 characters', [
        'Experience:ServerAuthToken',
      ]);
    }
  }
}
