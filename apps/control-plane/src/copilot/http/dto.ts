import { ArrayField, EnumField, ObjectField, StringField } from '@arbiter/platform';
import { DRAFT_SHAPES, DraftShape } from '../domain/shape-schemas';

/** One example: the facts, and the outputs the author expects the rules to give for them. */
export class DraftExampleDto {
  @ObjectField({ description: 'Input facts.', example: { applicant: { age: 17 } } })
  facts!: Record<string, unknown>;

  @ObjectField({
    description: 'Outputs the draft must produce for these facts (each listed field must be equal).',
    example: { eligible: false },
  })
  expected!: Record<string, unknown>;
}

/** `POST /api/v1/control-plane/copilot/rulesets/{workflow}/draft`. */
export class DraftRequestDto {
  @StringField({
    minLength: 1,
    maxLength: 8_000,
    description: 'What the rules must do, in natural language.',
    example: 'Applicants under 18 are not eligible; adults are eligible.',
  })
  description!: string;

  @EnumField(DRAFT_SHAPES, {
    optional: true,
    description: "The rule set shape to draft (default 'rules').",
    example: 'rules',
  })
  shape?: DraftShape;

  @ArrayField(DraftExampleDto, {
    optional: true,
    maxItems: 50,
    description:
      'Examples the draft is dry-run against before it is saved; any mismatch: 422, nothing saved.',
  })
  examples?: DraftExampleDto[];

  @StringField({
    optional: true,
    maxLength: 2_000,
    description:
      'Recorded with the version (`changeDescription`) and in the audit entry (default: the description).',
  })
  detail?: string;
}

/** `POST …/{workflow}/{version}/discard`. */
export class DiscardDto {
  @StringField({
    optional: true,
    maxLength: 2_000,
    description:
      "Why (recorded as the rejection reason and in the audit; default 'copilot draft discarded').",
    example: 'not what we need',
  })
  reason?: string;
}

/** `POST …/{workflow}/{version}/revise`: a person's edit of a copilot draft. */
export class ReviseDto {
  @ObjectField({ description: 'The edited rule set document (validated like any save).' })
  ruleSet!: Record<string, unknown>;

  @StringField({
    optional: true,
    maxLength: 2_000,
    description: 'Recorded with the new version and in the audit.',
  })
  detail?: string;
}
