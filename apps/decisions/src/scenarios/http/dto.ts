import { ArrayField, BooleanField, IntField, NumberField, ObjectField, StringField } from '@arbiter/platform';

/** Request bodies of the scenario routes: each field's decorator is its validation rule and its schema. */

export class GeneratePlanBody {
  @StringField({
    description: 'The decision table (its id).',
    example: '6f1c2b7e-3d4a-4f5b-9c8d-1e2f3a4b5c6d',
  })
  tableId!: string;

  @IntField({
    optional: true,
    min: 1,
    description: 'Table version to generate from (default: the latest).',
    example: 1,
  })
  version?: number;

  @IntField({
    optional: true,
    min: 0,
    max: 4294967295,
    description: 'Seed of the generator (default 1): the same seed gives the same scenarios.',
    example: 42,
  })
  seed?: number;
}

export class RunPlanBody {
  @IntField({
    optional: true,
    min: 1,
    description: 'Table version to run against (default: the latest).',
    example: 2,
  })
  version?: number;
}

export class GateBody {
  @StringField({
    description: 'The decision table (its id).',
    example: '6f1c2b7e-3d4a-4f5b-9c8d-1e2f3a4b5c6d',
  })
  tableId!: string;

  @IntField({
    optional: true,
    min: 1,
    description: 'The candidate version (default: the latest).',
    example: 2,
  })
  version?: number;

  @NumberField({
    optional: true,
    min: 0,
    max: 100,
    description: 'Minimum row coverage in percent (default 90).',
    example: 90,
  })
  minCoverage?: number;

  @BooleanField({ optional: true, description: 'Run the mutation analysis (default true).', example: true })
  mutation?: boolean;

  @NumberField({
    optional: true,
    min: 0,
    max: 100,
    description: 'Minimum mutation score in percent (default: reported, not gated).',
    example: 80,
  })
  minMutationScore?: number;

  @IntField({
    optional: true,
    min: 0,
    max: 4294967295,
    description: 'Seed when the table has no plan yet and the gate generates one.',
    example: 1,
  })
  seed?: number;
}

export class ExpectationBody {
  @ArrayField('string', {
    maxItems: 10000,
    description: "Row ids that must match, in the engine's order (empty: none).",
    example: ['r2'],
  })
  matchedRows!: string[];

  @ObjectField({
    nullable: true,
    description: 'The output values the table must give (null: no output).',
    example: { risk: 'low' },
  })
  outputs!: Record<string, unknown> | null;

  @StringField({
    optional: true,
    nullable: true,
    maxLength: 100,
    description: 'Evaluation error code expected instead of a result.',
    example: 'MISSING_REQUIRED_INPUT',
  })
  errorCode?: string | null;

  @StringField({
    optional: true,
    maxLength: 2000,
    description: 'Why (shown with the scenario).',
    example: 'Agreed with underwriting',
  })
  description?: string;
}

export class AiProposalsBody {
  @IntField({
    optional: true,
    min: 1,
    max: 200,
    description: 'How many scenarios to ask the model for (default 20).',
    example: 20,
  })
  count?: number;
}

export class WorkflowPlanBody {
  @IntField({
    optional: true,
    min: 1,
    description: 'Workflow version to generate from (default: the active version).',
    example: 3,
  })
  version?: number;

  @IntField({
    optional: true,
    min: 0,
    max: 4294967295,
    description: 'Seed of the generator (default 1): the same seed gives the same scenarios.',
    example: 1,
  })
  seed?: number;
}

export class WorkflowRunBody {
  @IntField({
    optional: true,
    min: 1,
    description: 'Workflow version to run against (default: the version the plan was generated from).',
    example: 4,
  })
  version?: number;
}

export class WorkflowGateBody {
  @IntField({
    optional: true,
    min: 1,
    description: "The candidate version (default: the active version when no plan exists, else the plan's).",
    example: 4,
  })
  version?: number;

  @NumberField({
    optional: true,
    min: 0,
    max: 100,
    description:
      'Minimum coverage in percent (default 90): rules seen both ways; flows also nodes and edges.',
    example: 90,
  })
  minCoverage?: number;

  @BooleanField({
    optional: true,
    description: 'Run the mutation analysis of the conditions and rules (default true).',
    example: true,
  })
  mutation?: boolean;

  @NumberField({
    optional: true,
    min: 0,
    max: 100,
    description: 'Minimum mutation score in percent (default: reported, not gated).',
    example: 80,
  })
  minMutationScore?: number;

  @IntField({
    optional: true,
    min: 0,
    max: 4294967295,
    description: 'Seed when the workflow has no plan yet and the gate generates one.',
    example: 1,
  })
  seed?: number;
}
