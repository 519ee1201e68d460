import { ConfigKey, ConfigurationError, StartupRules } from '@arbiter/platform';
import { IsInt, IsNumber, IsString, Max, Min } from 'class-validator';

/** `Scenarios:*`: generator limits and the optional AI backend (our keys; the spec names none). */
export class ScenariosSettings implements StartupRules {
  /** scenarios one plan may hold (the generator stops adding past it) */
  @ConfigKey('Scenarios:MaxScenariosPerPlan')
  @IsInt()
  @Min(10)
  @Max(200_000)
  maxScenariosPerPlan: number = 50_000;

  /** mutants one gate run may try (a seeded sample past it; the report says `sampled`) */
  @ConfigKey('Scenarios:MaxMutants')
  @IsInt()
  @Min(1)
  @Max(1_000_000)
  maxMutants: number = 50_000;

  /**
   * worker threads that generate plans, run them and run the mutation analysis (off the service's event
   * loop); started on first use, stopped after 30 s idle
   */
  @ConfigKey('Scenarios:Workers')
  @IsInt()
  @Min(1)
  @Max(64)
  workers: number = 1;

  /**
   * longest one generation, run or gate (run + mutation run) may take on its worker thread; past it the
   * thread is stopped and the request is a 422 SCENARIO_DEADLINE_EXCEEDED
   */
  @ConfigKey('Scenarios:WorkerTimeoutMs')
  @IsInt()
  @Min(1000)
  @Max(3_600_000)
  workerTimeoutMs: number = 300_000;

  /** old-generation heap of one scenario worker (MiB); a task past it is a 422 SCENARIO_MEMORY_EXCEEDED */
  @ConfigKey('Scenarios:WorkerMemoryMb')
  @IsInt()
  @Min(64)
  @Max(16_384)
  workerMemoryMb: number = 1024;

  /**
   * cosine similarity at or above which a generated pairwise combination, or an AI proposal, counts as a
   * near duplicate of a scenario kept before it; 0 (default): duplicates by hash only. The vectors come from
   * `Scenarios:EmbeddingBaseUrl` when set, else from the local feature-hashing embedding (no model)
   */
  @ConfigKey('Scenarios:SimilarityThreshold')
  @IsNumber()
  @Min(0)
  @Max(1)
  similarityThreshold: number = 0;

  /** how long a workflow plan, run or gate waits for the control plane's rule set over the bus */
  @ConfigKey('Scenarios:ControlPlaneTimeoutMs')
  @IsInt()
  @Min(100)
  @Max(60_000)
  controlPlaneTimeoutMs: number = 5000;

  /** base URL of an OpenAI-compatible chat endpoint (`…/v1`); empty: no AI proposals (503) */
  @ConfigKey('Scenarios:Ai:Endpoint')
  @IsString()
  aiEndpoint: string = '';

  @ConfigKey('Scenarios:Ai:Model')
  @IsString()
  aiModel: string = '';

  /** bearer key sent to the endpoint (empty: none) */
  @ConfigKey('Scenarios:Ai:ApiKey')
  @IsString()
  aiApiKey: string = '';

  @ConfigKey('Scenarios:Ai:TimeoutMs')
  @IsInt()
  @Min(100)
  @Max(300_000)
  aiTimeoutMs: number = 30_000;

  /**
   * base URL of an OpenAI-compatible embeddings endpoint (`…/v1`, the experience service's protocol and
   * client) for near-duplicate removal; empty: the local embedding of the facts
   */
  @ConfigKey('Scenarios:EmbeddingBaseUrl')
  @IsString()
  embeddingBaseUrl: string = '';

  @ConfigKey('Scenarios:EmbeddingModel')
  @IsString()
  embeddingModel: string = '';

  @ConfigKey('Scenarios:EmbeddingApiKey')
  @IsString()
  embeddingApiKey: string = '';

  assertStartupRules(): void {
    if (this.embeddingBaseUrl && !this.embeddingModel)
      throw new ConfigurationError('Scenarios:EmbeddingBaseUrl needs Scenarios:EmbeddingModel', [
        'Scenarios:EmbeddingModel',
      ]);
    for (const [key, url] of [
      ['Scenarios:EmbeddingBaseUrl', this.embeddingBaseUrl],
      ['Scenarios:Ai:Endpoint', this.aiEndpoint],
    ] as const)
      if (url && !/^https?:\/\/\S+$/.test(url))
        throw new ConfigurationError(`${key} must be an http(s) URL`, [key]);
  }
}
