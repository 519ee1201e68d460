import { ConfigKey } from '@arbiter/platform';
import { IsInt, Max, Min } from 'class-validator';

/** `DecisionTables:*`: engine cache and limits of the decision-table API (our keys; the spec names none). */
export class DecisionTablesSettings {
  /** compiled tables kept in memory (LRU); least recently used ones are evicted and recompiled on demand */
  @ConfigKey('DecisionTables:CompiledCacheSize')
  @IsInt()
  @Min(1)
  @Max(1_000_000)
  compiledCacheSize: number = 1000;

  @ConfigKey('DecisionTables:MaxRows')
  @IsInt()
  @Min(1)
  @Max(100_000)
  maxRows: number = 100_000;

  /**
   * Cells (rows × input columns) from which validating or analysing an unsaved definition runs on a worker
   * thread (below it, in the service: a thread's round trip costs more than a small table's analysis).
   */
  @ConfigKey('DecisionTables:AnalysisWorkerCells')
  @IsInt()
  @Min(0)
  analysisWorkerCells: number = 5_000;

  /** Worker threads for validating and analysing large definitions. */
  @ConfigKey('DecisionTables:AnalysisWorkers')
  @IsInt()
  @Min(1)
  @Max(64)
  analysisWorkers: number = 1;

  @ConfigKey('DecisionTables:MaxColumns')
  @IsInt()
  @Min(1)
  @Max(1000)
  maxColumns: number = 100;

  /** largest accepted import upload (multipart file part) */
  @ConfigKey('DecisionTables:MaxUploadBytes')
  @IsInt()
  @Min(1024)
  maxUploadBytes: number = 5 * 1024 * 1024;

  /**
   * FEEL steps (loop iterations, user-function calls, sort comparisons, …) one evaluation may take: every
   * cell, computed column and output expression of a table evaluation together, or one `/feel` call. Past
   * it the evaluation is a 422 EVALUATION_BUDGET_EXCEEDED.
   */
  @ConfigKey('DecisionTables:EvaluationStepBudget')
  @IsInt()
  @Min(1000)
  @Max(100_000_000)
  evaluationStepBudget: number = 1_000_000;

  /** Wall-clock limit of one evaluation (table or `/feel`); past it a 422 DEADLINE_EXCEEDED. */
  @ConfigKey('DecisionTables:EvaluationTimeoutMs')
  @IsInt()
  @Min(10)
  @Max(60_000)
  evaluationTimeoutMs: number = 1000;

  /** Tables one import may create: JSON array items, DMN decision tables, XLSX worksheets (413 past it). */
  @ConfigKey('DecisionTables:MaxImportTables')
  @IsInt()
  @Min(1)
  @Max(10_000)
  maxImportTables: number = 100;

  /** Lines (metadata, header, rows) of one CSV file or XLSX worksheet, counted before parsing (413 past it). */
  @ConfigKey('DecisionTables:MaxImportLines')
  @IsInt()
  @Min(10)
  @Max(1_000_000)
  maxImportLines: number = 50_000;

  /** Entries of an uploaded XLSX archive (413 past it). */
  @ConfigKey('DecisionTables:MaxImportArchiveEntries')
  @IsInt()
  @Min(10)
  @Max(100_000)
  maxImportArchiveEntries: number = 200;

  /** Decompressed bytes of an uploaded XLSX archive, all entries together; a zip bomb stops here (413). */
  @ConfigKey('DecisionTables:MaxImportUncompressedBytes')
  @IsInt()
  @Min(1024 * 1024)
  maxImportUncompressedBytes: number = 64 * 1024 * 1024;
}
