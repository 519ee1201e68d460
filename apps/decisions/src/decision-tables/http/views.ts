import type {
  AnalysisResult,
  Gap,
  InputColumn,
  OutputColumn,
  OutputRow,
  Overlap,
  Redundancy,
  TableProblem,
  ValidationResult,
} from '@arbiter/rule-engine';
import { MAX_REPORTED_GAPS, MAX_REPORTED_OVERLAPS } from '@arbiter/rule-engine';
import { ApiProperty, ApiPropertyOptional, getSchemaPath } from '@nestjs/swagger';
import type { Suggestion } from '@arbiter/feel';
import type { CacheMetrics } from '../application/compiled-table-cache';
import type {
  DecisionTableAuthoringService,
  ImportResult,
} from '../application/decision-table-authoring.service';
import type {
  DecisionTableEvaluationService,
  EvaluationView,
} from '../application/decision-table-evaluation.service';
import type { TableFeelService } from '../application/table-feel.service';
import type {
  DecisionTableView as StoredTableView,
  StoredDefinition,
  StoredRow,
  TableSummary,
} from '../application/table-model';
import type { auditEntryView, versionView } from '../application/table-views';
import { JSON_VALUE_SCHEMA } from './openapi-parts';

/**
 * Response bodies of the decision-table routes (spec 2, "Resources and their fields"). Each class
 * implements the type the application service returns, so the compiler keeps the two together.
 */

const TABLE_ID = '6f1c2b7e-3d4a-4f5b-9c8d-1e2f3a4b5c6d';
const OPEN_MAP = { type: 'object', additionalProperties: true } as const;

// ------------------------------------------------------------------ the table model

export class InputColumnView implements InputColumn {
  @ApiProperty({ example: 'age' })
  name!: string;

  @ApiPropertyOptional({
    description:
      'Value type as sent (`string`, `number`, `boolean`, `date`, `time`, `dateTime`, …); absent is `any`.',
    example: 'number',
  })
  type?: string;

  @ApiPropertyOptional({ description: 'An input without this fact is refused.', example: true })
  required?: boolean;

  @ApiPropertyOptional({ description: "FEEL expression computing the column's value from the input facts." })
  expression?: string;
}

export class OutputColumnView implements OutputColumn {
  @ApiProperty({ example: 'risk' })
  name!: string;

  @ApiPropertyOptional({ description: 'Value type as sent; absent is `any`.', example: 'string' })
  type?: string;

  @ApiPropertyOptional({ description: 'The value when no row matches.', ...JSON_VALUE_SCHEMA } as never)
  defaultValue?: unknown;

  @ApiPropertyOptional({
    type: 'array',
    items: JSON_VALUE_SCHEMA,
    description: 'Priority order for `Priority` and `OutputOrder`: earlier values win.',
  } as never)
  outputValues?: unknown[];
}

export class TableRowView implements StoredRow {
  @ApiProperty({ description: 'Row id (kept across versions).', example: 'r2' })
  id!: string;

  @ApiProperty({ type: 'integer', example: 2 })
  priority!: number;

  @ApiProperty({
    ...OPEN_MAP,
    description: 'Input column name → FEEL unary test (an absent column matches any value).',
    example: { age: '[18..65]', country: '"NL","BE"' },
  })
  inputConditions!: Record<string, string>;

  @ApiProperty({ ...OPEN_MAP, description: 'Output column name → value.', example: { risk: 'low' } })
  outputs!: Record<string, unknown>;

  @ApiPropertyOptional({
    ...OPEN_MAP,
    description: 'Output column name → FEEL expression evaluated when the row matches (computed outputs).',
    example: { discount: 'amount * 0.1' },
  })
  outputExpressions?: Record<string, string>;
}

/** A table definition as stored per version (and as the JSON export writes it). */
export class TableDefinitionView implements StoredDefinition {
  @ApiProperty({ example: 'Loan risk' })
  name!: string;

  @ApiPropertyOptional({ example: 'risk by age and country' })
  description?: string;

  @ApiProperty({
    description:
      'Hit policy as sent: `Unique`, `Any`, `First`, `All`, `Collect`, `RuleOrder`, `OutputOrder`, `Priority`, ' +
      '`CollectSum`, `CollectMin`, `CollectMax`, `CollectCount` (or a DMN name or letter for one of them).',
    example: 'First',
  })
  hitPolicy!: string;

  @ApiProperty({ type: [InputColumnView] })
  inputColumns!: InputColumnView[];

  @ApiProperty({ type: [OutputColumnView] })
  outputColumns!: OutputColumnView[];

  @ApiProperty({ type: [TableRowView] })
  rows!: TableRowView[];
}

/** A stored table at one version (the latest, or the one asked for). */
export class DecisionTableView extends TableDefinitionView implements StoredTableView {
  @ApiProperty({ format: 'uuid', example: TABLE_ID })
  id!: string;

  @ApiProperty({ type: 'integer', minimum: 1, description: 'The version shown.', example: 1 })
  version!: number;

  @ApiProperty({ format: 'date-time', description: 'When the table was created.' })
  createdAt!: string;

  @ApiProperty({ format: 'date-time', description: 'When this version was written.' })
  modifiedAt!: string;

  @ApiProperty({ example: 'tenant-a' })
  tenantId!: string;
}

export class TableSummaryView implements TableSummary {
  @ApiProperty({ format: 'uuid', example: TABLE_ID })
  id!: string;

  @ApiProperty({ example: 'Loan risk' })
  name!: string;

  @ApiProperty({ type: String, nullable: true, example: 'risk by age and country' })
  description!: string | null;

  @ApiProperty({ type: 'integer', example: 2 })
  inputColumnCount!: number;

  @ApiProperty({ type: 'integer', example: 1 })
  outputColumnCount!: number;

  @ApiProperty({ type: 'integer', example: 3 })
  rowCount!: number;

  @ApiProperty({ type: 'integer', minimum: 1, description: 'The latest version.', example: 1 })
  version!: number;

  @ApiProperty({ format: 'date-time' })
  updatedAt!: string;

  @ApiProperty({ example: 'tenant-a' })
  tenantId!: string;
}

type Created = Awaited<ReturnType<DecisionTableAuthoringService['create']>>;

export class CreatedTableView implements Created {
  @ApiProperty({ type: String, format: 'uuid', example: TABLE_ID })
  id!: Created['id'];

  @ApiProperty({ example: 'Loan risk' })
  name!: string;

  @ApiProperty({ type: 'integer', enum: [1], example: 1 })
  version!: number;

  @ApiProperty({ format: 'date-time', example: '2026-11-25T15:03:52.000Z' })
  createdAt!: string;
}

type Updated = Awaited<ReturnType<DecisionTableAuthoringService['update']>>;

export class UpdatedTableView implements Updated {
  @ApiProperty({ format: 'uuid', example: TABLE_ID })
  id!: string;

  @ApiProperty({ type: 'integer', minimum: 2, description: 'The new version.', example: 2 })
  version!: number;

  @ApiProperty({ format: 'date-time' })
  modifiedAt!: string;
}

// ------------------------------------------------------------------ versions

export class VersionEntryView implements ReturnType<typeof versionView> {
  @ApiProperty({ type: 'integer', minimum: 1, example: 2 })
  version!: number;

  @ApiProperty({ format: 'date-time' })
  createdAt!: string;

  @ApiProperty({ description: 'Who wrote the version.', example: 'alice' })
  createdBy!: string;

  @ApiProperty({ description: 'Version comment (empty when none was given).', example: 'split seniors' })
  comment!: string;
}

/** One value that differs between two versions. */
export class FieldChangeView {
  @ApiProperty({
    description: 'The value in the older version (null: absent).',
    ...JSON_VALUE_SCHEMA,
  } as never)
  from!: unknown;

  @ApiProperty({
    description: 'The value in the newer version (null: absent).',
    ...JSON_VALUE_SCHEMA,
  } as never)
  to!: unknown;
}

/** Table-level fields that differ (only those). */
export class TableChangesView {
  @ApiPropertyOptional({ type: FieldChangeView })
  name?: FieldChangeView;

  @ApiPropertyOptional({ type: FieldChangeView, example: { from: 'First', to: 'Unique' } })
  hitPolicy?: FieldChangeView;

  @ApiPropertyOptional({ type: FieldChangeView })
  description?: FieldChangeView;

  @ApiPropertyOptional({ type: FieldChangeView })
  inputColumns?: FieldChangeView;

  @ApiPropertyOptional({ type: FieldChangeView })
  outputColumns?: FieldChangeView;
}

const CHANGE_MAP = {
  type: 'object',
  additionalProperties: { $ref: getSchemaPath(FieldChangeView) },
} as const;

/** What changed in a row kept across the two versions (only what differs). */
export class RowChangesView {
  @ApiPropertyOptional({
    ...CHANGE_MAP,
    description: 'Output column name → change.',
    example: { risk: { from: 'low', to: 'very low' } },
  })
  outputs?: Record<string, FieldChangeView>;

  @ApiPropertyOptional({ ...CHANGE_MAP, description: 'Output column name → change of its expression.' })
  outputExpressions?: Record<string, FieldChangeView>;

  @ApiPropertyOptional({ ...CHANGE_MAP, description: 'Input column name → change of its condition.' })
  inputConditions?: Record<string, FieldChangeView>;

  @ApiPropertyOptional({ type: FieldChangeView })
  priority?: FieldChangeView;
}

export class AddedRowView {
  @ApiProperty({ example: 'r4' })
  rowId!: string;

  @ApiProperty({ ...OPEN_MAP, example: { age: '> 65' } })
  inputConditions!: Record<string, string>;

  @ApiProperty({ ...OPEN_MAP, example: { risk: 'senior' } })
  outputs!: Record<string, unknown>;

  @ApiPropertyOptional({ ...OPEN_MAP, example: { discount: 'amount * 0.2' } })
  outputExpressions?: Record<string, string>;
}

export class ModifiedRowView {
  @ApiProperty({ example: 'r2' })
  rowId!: string;

  @ApiProperty({ type: RowChangesView })
  changes!: RowChangesView;
}

/** Rows are matched by id across the two versions. */
export class VersionDiffView {
  @ApiProperty({ type: 'integer', minimum: 1, example: 1 })
  fromVersion!: number;

  @ApiProperty({ type: 'integer', minimum: 1, example: 2 })
  toVersion!: number;

  @ApiProperty({ type: TableChangesView })
  changes!: TableChangesView;

  @ApiProperty({ type: [AddedRowView] })
  addedRows!: AddedRowView[];

  @ApiProperty({
    type: [String],
    description: 'Ids of the rows the newer version no longer has.',
    example: ['r3'],
  })
  removedRows!: string[];

  @ApiProperty({ type: [ModifiedRowView] })
  modifiedRows!: ModifiedRowView[];
}

// ------------------------------------------------------------------ evaluation

export class OutputRowView implements OutputRow {
  @ApiProperty({ example: 'r2' })
  rowId!: string;

  @ApiProperty({ ...OPEN_MAP, description: 'Output column name → value.', example: { risk: 'low' } })
  outputs!: Record<string, unknown>;
}

export class EvaluationResultView implements EvaluationView {
  @ApiProperty({
    type: [String],
    description: 'Ids of the matched rows, in hit-policy order.',
    example: ['r2'],
  })
  matchedRows!: string[];

  @ApiProperty({ type: [OutputRowView], description: 'The outputs of the rows the hit policy selected.' })
  outputRows!: OutputRowView[];

  @ApiProperty({
    ...OPEN_MAP,
    nullable: true,
    description:
      'Output column name → value: single-hit policies one value, multi-hit policies a list, the `Collect…` ' +
      'aggregations their result; the defaults when no row matches; null when no row matches and no column ' +
      'has a default under a single-hit policy.',
    example: { risk: 'low' },
  })
  outputValues!: Record<string, unknown> | null;

  @ApiProperty({ description: 'Time spent evaluating, in milliseconds.', example: 0.012 })
  evaluationTimeMs!: number;
}

type Executed = Awaited<ReturnType<DecisionTableEvaluationService['execute']>>;

export class ExecutionResultView implements Executed {
  @ApiProperty({ type: [String], example: ['r1'] })
  matchedRows!: string[];

  @ApiProperty({
    ...OPEN_MAP,
    nullable: true,
    description: 'Output column name → value (as `outputValues` of the evaluation result).',
    example: { risk: 'minor' },
  })
  outputs!: Record<string, unknown> | null;
}

// ------------------------------------------------------------------ validation and analysis

export class TableProblemView implements TableProblem {
  @ApiProperty({ type: String, nullable: true, description: 'The row at fault, if one is.', example: 'r2' })
  rowId!: string | null;

  @ApiProperty({
    type: String,
    nullable: true,
    description: 'The column at fault, if one is.',
    example: 'age',
  })
  column!: string | null;

  @ApiProperty({ example: "Invalid FEEL unary test '[18..': unexpected end of input" })
  message!: string;
}

export class OverlapView implements Overlap {
  @ApiProperty({ type: [String], minItems: 2, maxItems: 2, example: ['r2', 'r3'] })
  rowIds!: [string, string];

  @ApiProperty({
    type: [String],
    description: 'The columns whose conditions intersect.',
    example: ['age', 'country'],
  })
  columns!: string[];
}

export class GapView implements Gap {
  @ApiProperty({
    ...OPEN_MAP,
    description: 'An input no row matches.',
    example: { age: 18, country: 'other' },
  })
  example!: Record<string, unknown>;

  @ApiProperty({ example: 'no row matches age = 18, country = "other"' })
  description!: string;
}

export class RedundancyView implements Redundancy {
  @ApiProperty({ example: 'r3' })
  rowId!: string;

  @ApiProperty({ description: 'The earlier row that matches everything this one does.', example: 'r2' })
  subsumedBy!: string;
}

export class AnalysisResultView implements AnalysisResult {
  @ApiProperty({
    type: [OverlapView],
    maxItems: MAX_REPORTED_OVERLAPS,
    description: `Pairs of rows whose conditions intersect on every column: the first ${MAX_REPORTED_OVERLAPS} (see \`overlapCount\`).`,
  })
  overlaps!: OverlapView[];

  @ApiProperty({
    type: 'integer',
    minimum: 0,
    description: 'Every overlapping pair of rows, also those past the cut of `overlaps`.',
    example: 1,
  })
  overlapCount!: number;

  @ApiProperty({
    description: `True when \`overlaps\` lists fewer pairs than \`overlapCount\` (more than ${MAX_REPORTED_OVERLAPS}).`,
    example: false,
  })
  overlapsTruncated!: boolean;

  @ApiProperty({
    type: [GapView],
    maxItems: MAX_REPORTED_GAPS,
    description: `Inputs no row matches, with an example each: the first ${MAX_REPORTED_GAPS} found.`,
  })
  gaps!: GapView[];

  @ApiProperty({
    description: `True when there are more gaps than \`gaps\` lists (the search found a ${MAX_REPORTED_GAPS + 1}th).`,
    example: false,
  })
  gapsTruncated!: boolean;

  @ApiProperty({
    type: [RedundancyView],
    description: 'Every row an earlier row subsumes (`First`; never cut).',
  })
  redundantRows!: RedundancyView[];

  @ApiProperty({
    description: 'False when opaque FEEL cells or the search budget limit what could be proven.',
  })
  complete!: boolean;
}

export class StoredTableAnalysisView extends AnalysisResultView {
  @ApiProperty({ format: 'uuid', example: TABLE_ID })
  id!: string;

  @ApiProperty({ type: 'integer', minimum: 1, description: 'The version analysed.', example: 1 })
  version!: number;
}

export class ValidationResultView implements ValidationResult {
  @ApiProperty({ example: false })
  valid!: boolean;

  @ApiProperty({ type: [TableProblemView], description: 'Empty when valid.' })
  errors!: TableProblemView[];

  @ApiPropertyOptional({ type: AnalysisResultView, description: 'The analysis, when the table is valid.' })
  analysis?: AnalysisResultView;
}

// ------------------------------------------------------------------ audit and metrics

const AUDIT_ACTIONS = ['Create', 'Update', 'Delete'] as const;

export class AuditEntryView implements ReturnType<typeof auditEntryView> {
  @ApiProperty({ format: 'date-time' })
  timestamp!: string;

  @ApiProperty({ enum: AUDIT_ACTIONS, example: 'Update' })
  action!: (typeof AUDIT_ACTIONS)[number];

  @ApiProperty({ example: 'alice' })
  actor!: string;

  @ApiProperty({
    type: 'integer',
    nullable: true,
    description: 'The version written (deleted: the last one).',
  })
  version!: number | null;

  @ApiProperty({ type: String, nullable: true, example: 'split seniors' })
  comment!: string | null;

  @ApiProperty({ example: 'changed hitPolicy; 1 row(s) added; 1 row(s) removed; 1 row(s) modified' })
  changesSummary!: string;
}

type GlobalAuditEntry = Awaited<ReturnType<DecisionTableAuthoringService['globalAudit']>>[number];

export class GlobalAuditEntryView extends AuditEntryView implements GlobalAuditEntry {
  @ApiProperty({ format: 'uuid', example: TABLE_ID })
  tableId!: string;

  @ApiProperty({ example: 'Loan risk' })
  tableName!: string;

  @ApiProperty({ example: 'tenant-a' })
  tenantId!: string;
}

export class CompiledCacheMetricsView implements CacheMetrics {
  @ApiProperty({ type: 'integer', description: 'Compiled tables held.' })
  size!: number;

  @ApiProperty({
    type: 'integer',
    description: 'Most compiled tables held (`DecisionTables:CompiledCacheSize`).',
  })
  capacity!: number;

  @ApiProperty({ type: 'integer' })
  hits!: number;

  @ApiProperty({ type: 'integer' })
  misses!: number;

  @ApiProperty({ type: 'integer' })
  evictions!: number;

  @ApiProperty({ type: 'integer', description: 'Entries dropped by a change of their table.' })
  invalidations!: number;

  @ApiProperty({ type: 'integer' })
  compilations!: number;
}

type Metrics = ReturnType<DecisionTableEvaluationService['metrics']>;

/** This replica's counters (since it started). */
export class DecisionTableMetricsView implements Metrics {
  @ApiProperty({ type: CompiledCacheMetricsView })
  compiledCache!: CompiledCacheMetricsView;

  @ApiProperty({ type: 'integer', description: 'Table evaluations (evaluate, execute, the evaluate tool).' })
  evaluations!: number;
}

// ------------------------------------------------------------------ FEEL helpers

type FeelValidation = Awaited<ReturnType<TableFeelService['validateExpression']>>;

export class FeelValidationView implements FeelValidation {
  @ApiProperty({ example: true })
  valid!: boolean;

  @ApiProperty({ description: '`OK`, or what is wrong.', example: 'OK' })
  message!: string;

  @ApiPropertyOptional({ type: 'integer', description: 'Line of the problem (1-based), when invalid.' })
  line?: number;

  @ApiPropertyOptional({ type: 'integer', description: 'Column of the problem (1-based), when invalid.' })
  column?: number;
}

type FeelEvaluation = Awaited<ReturnType<TableFeelService['evaluate']>>;

export class FeelEvaluationView implements FeelEvaluation {
  @ApiProperty({ example: 'age * 2' })
  expression!: string;

  @ApiPropertyOptional({
    description: 'The value (absent when the expression yields no JSON value).',
    example: 42,
    ...JSON_VALUE_SCHEMA,
  } as never)
  result!: unknown;

  @ApiProperty({
    type: [String],
    description: 'What evaluation noticed (division by zero, mismatched types, …).',
    example: [],
  })
  warnings!: string[];
}

const SUGGESTION_KINDS = ['variable', 'function', 'keyword'] as const;

export class FeelSuggestionView implements Suggestion {
  @ApiProperty({ example: 'string length' })
  label!: string;

  @ApiProperty({ enum: SUGGESTION_KINDS, example: 'function' })
  kind!: (typeof SUGGESTION_KINDS)[number];

  @ApiPropertyOptional({ example: 'string length(string)' })
  detail?: string;

  @ApiProperty({ description: 'Text replacing the typed prefix.', example: 'string length(' })
  insertText!: string;

  @ApiProperty({ type: 'integer', description: 'Offset where the replaced prefix starts.', example: 0 })
  from!: number;
}

export class FeelSuggestionsView {
  @ApiProperty({ type: [FeelSuggestionView], maxItems: 50 })
  suggestions!: FeelSuggestionView[];
}

// ------------------------------------------------------------------ import

type Imported = Awaited<ReturnType<DecisionTableAuthoringService['importMany']>>;

const IMPORT_STATUSES = ['success', 'skipped', 'failed', 'ignored'] as const;

export class ImportEntryView implements ImportResult {
  @ApiProperty({
    description: 'The table name read from the file (empty when it has none).',
    example: 'Loan risk',
  })
  name!: string;

  @ApiProperty({ type: String, nullable: true, format: 'uuid', description: 'The new table, when created.' })
  id!: string | null;

  @ApiProperty({
    enum: IMPORT_STATUSES,
    description:
      '`skipped`: a table of that name exists; `failed`: the definition is invalid (see `error`); `ignored`: a ' +
      'part of the file that is no decision table (a DMN decision of another kind), not imported.',
    example: 'success',
  })
  status!: (typeof IMPORT_STATUSES)[number];

  @ApiPropertyOptional({ description: 'Why the table was skipped, failed or ignored.' })
  error?: string;
}

export class ImportResultView implements Imported {
  @ApiProperty({ type: 'integer', example: 1 })
  imported!: number;

  @ApiProperty({ type: 'integer', description: 'Tables skipped: a table of that name exists.', example: 0 })
  skipped!: number;

  @ApiProperty({
    type: 'integer',
    description: 'Tables not created because they are invalid (each `failed` result says why); 207 when > 0.',
    example: 0,
  })
  failed!: number;

  @ApiProperty({
    type: [ImportEntryView],
    example: [{ name: 'Loan risk', id: TABLE_ID, status: 'success' }],
  })
  results!: ImportEntryView[];
}
