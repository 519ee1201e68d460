import { ApiProperty } from '@nestjs/swagger';
import { RULE_SET_SHAPES } from '@arbiter/rule-engine';
import { INSTANT } from '../../shared';

/** The spec's provenance row. */
export class ProvenanceResponse {
  @ApiProperty({ format: 'uuid', description: 'Server-generated.' })
  id!: string;

  @ApiProperty({ maxLength: 128, example: 'acme' })
  tenantId!: string;

  @ApiProperty({ maxLength: 256, example: 'loan-eligibility' })
  workflow!: string;

  @ApiProperty({ example: 3 })
  version!: number;

  @ApiProperty({
    maxLength: 64,
    description: 'SHA-256 (hex) of the canonical JSON (RFC 8785) of the draft the model wrote.',
    example: '9f2c…',
  })
  aiOriginalHash!: string;

  @ApiProperty({ description: 'The original draft as canonical JSON (its SHA-256 is `aiOriginalHash`).' })
  aiOriginalSnapshot!: string;

  @ApiProperty(INSTANT)
  generatedAt!: string;

  @ApiProperty({
    maxLength: 256,
    description: 'Who asked for the draft (the token user with authorization on).',
  })
  generatedBy!: string;

  @ApiProperty({
    type: 'boolean',
    nullable: true,
    description: 'Null until activation; then whether the activated content differs from the original.',
  })
  editedBeforeApproval!: boolean | null;

  @ApiProperty({ ...INSTANT, nullable: true, description: 'Null until approved.' })
  approvedAt!: string | null;
}

export class ExampleResultView {
  @ApiProperty({ example: 0 })
  index!: number;

  @ApiProperty()
  passed!: boolean;

  @ApiProperty({ type: 'object', additionalProperties: true })
  expected!: Record<string, unknown>;

  @ApiProperty({ type: 'object', additionalProperties: true })
  actual!: Record<string, unknown>;

  @ApiProperty({ type: 'string', isArray: true })
  mismatches!: string[];
}

export class DraftResultView {
  @ApiProperty({ example: 'loan-eligibility' })
  workflowName!: string;

  @ApiProperty({ example: 3 })
  version!: number;

  @ApiProperty({ enum: ['Draft'] })
  status!: 'Draft';

  @ApiProperty({ enum: [...RULE_SET_SHAPES] })
  shape!: string;

  @ApiProperty(INSTANT)
  createdAt!: string;

  @ApiProperty({ example: 'alice' })
  createdBy!: string;

  @ApiProperty({ example: 4 })
  revision!: number;

  @ApiProperty({ description: 'The model that drafted it (`Copilot:Model`).', example: 'gpt-4.1-mini' })
  model!: string;

  @ApiProperty({ type: 'object', additionalProperties: true, description: 'The drafted document, as saved.' })
  ruleSet!: Record<string, unknown>;

  @ApiProperty({ type: ExampleResultView, isArray: true })
  examples!: ExampleResultView[];

  @ApiProperty({ type: ProvenanceResponse })
  provenance!: ProvenanceResponse;
}

export class DiscardResultView {
  @ApiProperty({ example: 'loan-eligibility' })
  workflowName!: string;

  @ApiProperty({ example: 3 })
  version!: number;

  @ApiProperty({ enum: ['Rejected'] })
  status!: 'Rejected';

  @ApiProperty({ example: 'alice' })
  discardedBy!: string;

  @ApiProperty(INSTANT)
  discardedAt!: string;

  @ApiProperty({ example: 'copilot draft discarded' })
  reason!: string;

  @ApiProperty({ example: 5 })
  revision!: number;

  @ApiProperty({ type: ProvenanceResponse, description: 'The provenance row, kept.' })
  provenance!: ProvenanceResponse;
}

export class ReviseResultView {
  @ApiProperty({ example: 'loan-eligibility' })
  workflowName!: string;

  @ApiProperty({ example: 4 })
  version!: number;

  @ApiProperty({ example: 'draft' })
  status!: string;

  @ApiProperty(INSTANT)
  createdAt!: string;

  @ApiProperty({ example: 'bob' })
  createdBy!: string;

  @ApiProperty({ example: false })
  activated!: boolean;

  @ApiProperty({ example: 6 })
  revision!: number;

  @ApiProperty({ enum: [...RULE_SET_SHAPES] })
  shape!: string;

  @ApiProperty({ example: 3, description: 'The copilot draft version this revises.' })
  revisedFrom!: number;

  @ApiProperty({
    type: ProvenanceResponse,
    description: "The new version's provenance: the same AI original.",
  })
  provenance!: ProvenanceResponse;
}
