import { ArrayField, BooleanField, IntField, ObjectField, StringField } from '@arbiter/platform';
import { HIT_POLICIES } from '@arbiter/rule-engine';
import { JsonValueField, JsonValueListField } from './openapi-parts';

/**
 * Request bodies of the decision-table routes. Each field's decorator is both its validation rule and its
 * schema. The shape of a table is checked here; its content (FEEL of every cell, hit policy, column types,
 * unknown or duplicate columns and rows, output values that do not fit their column) is the rule
 * engine's, answered as 400 `INVALID_TABLE` with one detail per row and column.
 */

const COLUMN_TYPES_TEXT =
  '`string`, `number`, `boolean`, `date`, `time`, `dateTime`, `duration`, `yearMonthDuration` or `any` ' +
  '(default `any`; DMN type names such as `date and time` or `feel:number` are read as these)';

export class InputColumnBody {
  @StringField({ minLength: 1, description: 'Column name: the input fact it reads.', example: 'age' })
  name!: string;

  @StringField({ optional: true, description: `Value type: ${COLUMN_TYPES_TEXT}.`, example: 'number' })
  type?: string;

  @BooleanField({
    optional: true,
    description: 'Evaluation refuses an input without this fact (400 `MISSING_REQUIRED_INPUT`).',
    example: true,
  })
  required?: boolean;

  @StringField({
    optional: true,
    description:
      "FEEL expression computing the column's value from the input facts (default: the fact `name`).",
    example: 'income / 12',
  })
  expression?: string;
}

export class OutputColumnBody {
  @StringField({ minLength: 1, description: 'Column name: the output it produces.', example: 'risk' })
  name!: string;

  @StringField({ optional: true, description: `Value type: ${COLUMN_TYPES_TEXT}.`, example: 'string' })
  type?: string;

  @JsonValueField({
    optional: true,
    description: 'The value when no row matches (DMN default output entry).',
    example: 'unknown',
  })
  defaultValue?: unknown;

  @JsonValueListField({
    description: 'Priority order for the `Priority` and `OutputOrder` hit policies: earlier values win.',
    example: ['high', 'low', 'minor'],
  })
  outputValues?: unknown[];
}

export class TableRowBody {
  @StringField({
    optional: true,
    minLength: 1,
    description: 'Row id, kept across versions so diffs follow the row (default: a new UUID).',
    example: 'r2',
  })
  id?: string;

  @IntField({
    optional: true,
    description: 'Rank of the row (default 0).',
    example: 2,
  })
  priority?: number;

  @ObjectField({
    optional: true,
    description:
      'Input column name → FEEL unary test (`"NL","BE"`, `>= 18`, `[18..65]`, `-` for any value); an absent ' +
      'column matches any value.',
    example: { age: '[18..65]', country: '"NL","BE"' },
  })
  inputConditions?: Record<string, string>;

  @ObjectField({
    optional: true,
    description: 'Output column name → value.',
    example: { risk: 'low' },
  })
  outputs?: Record<string, unknown>;

  @ObjectField({
    optional: true,
    description:
      'Output column name → FEEL expression evaluated when the row matches (DMN non-constant output entries), with ' +
      'the input columns and the facts in scope; a column has a value in `outputs` or an expression here, not both.',
    example: { discount: 'amount * 0.1' },
  })
  outputExpressions?: Record<string, string>;
}

/** The create and update body (spec 2, "Decision table"); the validate and analyze routes read it too. */
export class DecisionTableDto {
  @StringField({
    minLength: 1,
    maxLength: 200,
    description: "Table name, unique in the caller's tenant (a duplicate is 409 `DUPLICATE_TABLE_NAME`).",
    example: 'Loan risk',
  })
  name!: string;

  @StringField({
    optional: true,
    maxLength: 4000,
    description: 'What the table decides.',
    example: 'risk by age and country',
  })
  description?: string;

  @ArrayField(InputColumnBody, {
    description: 'Input columns, in the order conditions are written.',
    example: [
      { name: 'age', type: 'number', required: true },
      { name: 'country', type: 'string' },
    ],
  })
  inputColumns!: InputColumnBody[];

  @ArrayField(OutputColumnBody, {
    description: 'Output columns (at least one).',
    example: [{ name: 'risk', type: 'string' }],
  })
  outputColumns!: OutputColumnBody[];

  @StringField({
    description:
      `Hit policy: ${HIT_POLICIES.map((p) => `\`${p}\``).join(', ')}; DMN names and letters (\`RULE ORDER\`, ` +
      '`U`, `C+`, …) are read as these. Kept as sent.',
    example: 'First',
  })
  hitPolicy!: string;

  @ArrayField(TableRowBody, {
    // each row is checked by the rule engine (naming its row id), not element by element by the pipe
    checkItems: false,
    description: 'Rules, matched in order.',
    example: [
      { id: 'r1', priority: 1, inputConditions: { age: '< 18' }, outputs: { risk: 'minor' } },
      {
        id: 'r2',
        priority: 2,
        inputConditions: { age: '[18..65]', country: '"NL","BE"' },
        outputs: { risk: 'low' },
      },
      { id: 'r3', priority: 3, inputConditions: { age: '>= 18' }, outputs: { risk: 'high' } },
    ],
  })
  rows!: TableRowBody[];

  @StringField({
    optional: true,
    maxLength: 2000,
    description: 'Comment for the version history.',
    example: 'split seniors',
  })
  comment?: string;
}

/** The update body: the create body and the version the edit is based on. */
export class UpdateDecisionTableDto extends DecisionTableDto {
  @IntField({
    optional: true,
    min: 1,
    description:
      'The version this edit is based on (the `version` of the table as read). When the latest version is ' +
      'another, the update is refused with 409 `CONCURRENT_MODIFICATION` and nothing is written. Absent (and ' +
      'no `If-Match`): the update is based on whatever is latest.',
    example: 1,
  })
  version?: number;
}

export class FeelValidateDto {
  @StringField({ description: 'FEEL expression or unary tests to check.', example: 'age > 18' })
  expression!: string;

  @ObjectField({
    optional: true,
    description:
      "Further names in scope → type (`{ name: 'number' }`), besides the table's input columns and the " +
      'facts its computed columns read.',
    example: { income: 'number' },
  })
  rowContext?: Record<string, string>;
}

export class FeelEvaluateDto {
  @StringField({ description: 'FEEL expression to evaluate.', example: 'age * 2' })
  expression!: string;

  @ObjectField({
    optional: true,
    description:
      'Sample input: fact name → value (computed columns the sample does not give are computed from it).',
    example: { age: 21 },
  })
  input?: Record<string, unknown>;
}

export class FeelAutocompleteDto {
  @StringField({ maxLength: 100_000, description: 'The expression being typed.', example: 'string l' })
  expression!: string;

  @IntField({
    optional: true,
    min: 0,
    description: 'Cursor offset in `expression` (default: its end).',
    example: 8,
  })
  cursor?: number;

  @ArrayField('string', {
    optional: true,
    description: 'Names in scope (for example the input column names).',
    example: ['age'],
  })
  variables?: string[];

  @StringField({
    optional: true,
    description: 'A table whose input columns are in scope too (404 `TABLE_NOT_FOUND` when unknown).',
    example: '6f1c2b7e-3d4a-4f5b-9c8d-1e2f3a4b5c6d',
  })
  tableId?: string;
}
