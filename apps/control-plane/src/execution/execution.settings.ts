import { ConfigKey } from '@arbiter/platform';
import { IsArray, IsIn, IsInt, IsOptional, IsString, Max, Min } from 'class-validator';

export const EXECUTION_ROUTER_MODES = ['Traditional', 'Rules', 'Hybrid', 'Shadow'] as const;
export type ExecutionRouterMode = (typeof EXECUTION_ROUTER_MODES)[number];

/** `RuleEngineOptions:ExecutionRouter:*` (also `RULEENGINE_EXECUTIONROUTER_MODE` / `…_CANDIDATEVERSION`). */
export class ExecutionRouterSettings {
  @ConfigKey('RuleEngineOptions:ExecutionRouter:Mode')
  @IsIn(EXECUTION_ROUTER_MODES as unknown as string[])
  mode: ExecutionRouterMode = 'Rules';

  @ConfigKey('RuleEngineOptions:ExecutionRouter:ActiveVersion', 'number')
  @IsOptional()
  @IsInt()
  @Min(1)
  activeVersion?: number;

  @ConfigKey('RuleEngineOptions:ExecutionRouter:CandidateVersion', 'number')
  @IsOptional()
  @IsInt()
  @Min(1)
  candidateVersion?: number;

  @ConfigKey('RuleEngineOptions:ExecutionRouter:ComparisonStrategies')
  @IsArray()
  @IsIn(['OutputFacts', 'ExecutionTime'], { each: true })
  comparisonStrategies: string[] = ['OutputFacts'];

  /** Ours: share of Hybrid traffic that runs the rules (the rest takes the traditional path). */
  @ConfigKey('RuleEngineOptions:ExecutionRouter:HybridRulesPercentage', 'number')
  @IsInt()
  @Min(0)
  @Max(100)
  hybridRulesPercentage = 50;

  /** Ours: output fields (or parents of fields) whose difference, absence included, makes a shadow difference `high`. */
  @ConfigKey('RuleEngineOptions:ExecutionRouter:CriticalFields')
  @IsArray()
  @IsString({ each: true })
  criticalFields: string[] = [];
}

/** Ours: `RuleEngineOptions:*` beyond the router — how rule sets are compiled and run. */
export class RuleEngineSettings {
  /** Base URL of the decisions service, for flow nodes that reference a stored table (`tableRef`). */
  @ConfigKey('RuleEngineOptions:DecisionTablesUrl')
  @IsString()
  decisionTablesUrl = 'http://127.0.0.1:3001';

  /**
   * API key presented to the decisions service (`X-Api-Key`) when it requires authentication: a service
   * key (`Authentication:ApiKeys:*` there) acts for the tenant each request names. Empty: no credentials.
   */
  @ConfigKey('RuleEngineOptions:DecisionTablesApiKey')
  @IsOptional()
  @IsString()
  decisionTablesApiKey?: string;

  /** Compiled rule set versions kept in memory (LRU, per tenant and version). */
  @ConfigKey('RuleEngineOptions:CompiledCacheCapacity', 'number')
  @IsInt()
  @Min(1)
  compiledCacheCapacity = 1000;

  /** Time limit of one execution (milliseconds). */
  @ConfigKey('RuleEngineOptions:ExecutionTimeoutMs', 'number')
  @IsInt()
  @Min(1)
  @Max(60_000)
  executionTimeoutMs = 5000;

  /** Time limit of a dry-run (milliseconds); the spec caps it at 10 seconds. */
  @ConfigKey('RuleEngineOptions:DryRunTimeoutMs', 'number')
  @IsInt()
  @Min(1)
  @Max(10_000)
  dryRunTimeoutMs = 10_000;

  /**
   * Worker threads for dry-runs of unsaved rule sets (`ruleSet` in the body): they compile and run off
   * the service's event loop, and one that reaches its time limit has its thread stopped.
   */
  @ConfigKey('RuleEngineOptions:DryRunWorkers:MaxThreads', 'number')
  @IsInt()
  @Min(1)
  @Max(64)
  dryRunWorkerThreads = 2;

  /** Heap of one dry-run worker thread (MiB); a dry-run that exhausts it fails with `DRY_RUN_MEMORY`. */
  @ConfigKey('RuleEngineOptions:DryRunWorkers:MemoryMb', 'number')
  @IsInt()
  @Min(32)
  @Max(8192)
  dryRunWorkerMemoryMb = 256;

  /**
   * FEEL steps a stored version's execution may take on the service's event loop. Past them (a loop an
   * author saved), a version without side effects is run again on an execution worker thread with the
   * whole budget and `ExecutionTimeoutMs`, so it holds no other request; one with a connector node keeps
   * running here. About 10–20 ms of FEEL on this kind of machine; real rules take far fewer steps.
   */
  @ConfigKey('RuleEngineOptions:InProcessFeelSteps', 'number')
  @IsInt()
  @Min(1000)
  @Max(20_000_000)
  inProcessFeelSteps = 100_000;

  /** Worker threads for stored versions that outgrow `InProcessFeelSteps`. */
  @ConfigKey('RuleEngineOptions:ExecutionWorkers:MaxThreads', 'number')
  @IsInt()
  @Min(1)
  @Max(64)
  executionWorkerThreads = 2;

  /** Heap of one execution worker thread (MiB); an execution that exhausts it fails with `EXECUTION_MEMORY`. */
  @ConfigKey('RuleEngineOptions:ExecutionWorkers:MemoryMb', 'number')
  @IsInt()
  @Min(32)
  @Max(8192)
  executionWorkerMemoryMb = 256;

  /** Connector name → URL: a connector node POSTs `{ connector, operation, input }` there and merges the JSON answer. */
  @ConfigKey('RuleEngineOptions:Connectors', 'dictionary')
  @IsOptional()
  connectors?: Record<string, string>;
}

/** Settings classes (`@ConfigKey`) of this module; assembled by the app module. */
export const EXECUTION_SETTINGS: (new () => object)[] = [ExecutionRouterSettings, RuleEngineSettings];
