import { requestJson, stringifyJsonSliced, WorkerPool, WorkerTaskTimeout } from '@arbiter/platform';
import {
  AUTHORING_TASKS_FILE,
  checkDecisionTable,
  validateDecisionTable,
  type TableProblem,
  type ValidateTableTask,
  type ValidationResult,
} from '@arbiter/rule-engine';
import { Inject, Injectable, OnModuleDestroy } from '@nestjs/common';
import { DecisionTablesSettings } from '../../settings';
import { TableLimits } from './table-validation';

/**
 * Stored JSON from this many bytes is validated on a worker thread (a 1,000-row table of 5 inputs,
 * `AnalysisWorkerCells`' default, is ~150 KB; parsing 64 KiB here takes well under 1 ms).
 */
const WORKER_JSON_BYTES = 64 * 1024;

/** `bytes` as a view of a whole buffer of its own (copied when it is a view into a larger one). */
const movable = (bytes: Uint8Array): Uint8Array =>
  bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? bytes : new Uint8Array(bytes);

/** Longest a worker may validate one definition before its thread is stopped. */
const VALIDATION_TIMEOUT_MS = 30_000;

/**
 * Validation and analysis of unsaved definitions: in the service for small ones, on a worker thread
 * (`DecisionTables:AnalysisWorkers`) from `DecisionTables:AnalysisWorkerCells` cells, so checking a
 * 10,000-row table holds no request of anyone else. The threads start on first use.
 */
@Injectable()
export class AnalysisWorkers implements OnModuleDestroy {
  private pool: WorkerPool | null = null;

  constructor(@Inject(DecisionTablesSettings) private readonly settings: DecisionTablesSettings) {}

  async validate(definition: unknown, limits: TableLimits): Promise<ValidationResult> {
    if (cells(definition) < this.settings.analysisWorkerCells)
      return validateDecisionTable(definition, limits);
    return this.runValidation(await taskOf(definition, limits));
  }

  /**
   * `validate` of a stored definition given as the UTF-8 bytes of its JSON, in parts (`versionBytes`): a
   * large one is decoded, parsed and checked on a worker thread only (the parts moved there), a small
   * one here (`JSON.parse` keeps every key, as the stored read does).
   */
  async validateStored(parts: Uint8Array[], limits: TableLimits): Promise<ValidationResult> {
    const bytes = parts.reduce((n, p) => n + p.byteLength, 0);
    if (bytes < WORKER_JSON_BYTES)
      return this.validate(JSON.parse(Buffer.concat(parts).toString('utf8')), limits);
    const moved = parts.map(movable);
    return this.runValidation({
      task: { definition: null, definitionParts: moved, limits },
      transfer: moved.map((p) => p.buffer as ArrayBuffer),
    });
  }

  private async runValidation({ task, transfer }: Task): Promise<ValidationResult> {
    try {
      return await this.workers().run<ValidationResult>(
        'validateTable',
        task,
        VALIDATION_TIMEOUT_MS,
        transfer,
      );
    } catch (error) {
      if (error instanceof WorkerTaskTimeout)
        return { valid: false, errors: [{ rowId: null, column: null, message: error.message }] };
      throw error;
    }
  }

  /**
   * The problems of a definition about to be saved (structure, FEEL of every cell: `checkDecisionTable`),
   * on a worker thread from `AnalysisWorkerCells` cells, so saving a 10,000-row table holds no request.
   */
  async check(definition: unknown, limits: TableLimits): Promise<TableProblem[]> {
    if (cells(definition) < this.settings.analysisWorkerCells) return checkDecisionTable(definition, limits);
    const { task, transfer } = await taskOf(definition, limits);
    try {
      return await this.workers().run<TableProblem[]>('checkTable', task, VALIDATION_TIMEOUT_MS, transfer);
    } catch (error) {
      if (error instanceof WorkerTaskTimeout) return [{ rowId: null, column: null, message: error.message }];
      throw error;
    }
  }

  private workers(): WorkerPool {
    return (this.pool ??= new WorkerPool({
      filename: AUTHORING_TASKS_FILE,
      maxThreads: this.settings.analysisWorkers,
    }));
  }

  async onModuleDestroy(): Promise<void> {
    await this.pool?.close();
  }
}

/**
 * The worker's task: the definition as JSON (a string crosses to the thread as one copy; cloning a
 * 100,000-row object graph held the loop ~100 ms): the request body's own bytes when the definition is
 * the body as parsed (`requestJson`), moved to the thread; else JSON text written in slices of the event
 * loop.
 */
async function taskOf(definition: unknown, limits: TableLimits): Promise<Task> {
  const json = requestJson(definition);
  if (json === undefined || typeof json === 'string') {
    const definitionJson = json ?? (await stringifyJsonSliced(definition));
    return { task: { definition: null, definitionJson, limits }, transfer: [] };
  }
  // a buffer of its own moves; a view into a shared one (a small pooled body) is copied first
  const bytes = movable(json);
  return {
    task: { definition: null, definitionBytes: bytes, limits },
    transfer: [bytes.buffer as ArrayBuffer],
  };
}

interface Task {
  task: ValidateTableTask;
  /** buffers moved to the worker with the task */
  transfer: ArrayBuffer[];
}

/** rows × input columns of a definition as sent (0 when it is not one). */
function cells(definition: unknown): number {
  const d = definition as { rows?: unknown; inputColumns?: unknown } | null;
  if (typeof d !== 'object' || d === null) return 0;
  const rows = Array.isArray(d.rows) ? d.rows.length : 0;
  const columns = Array.isArray(d.inputColumns) ? d.inputColumns.length : 0;
  return rows * Math.max(1, columns);
}
