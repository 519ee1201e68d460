import { StringField } from '@arbiter/platform';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional } from 'class-validator';

/** `GET /api/v1/rule-catalog` query. */
export class RuleCatalogQueryDto {
  @StringField({
    optional: true,
    maxLength: 200,
    description: 'Exact category, case-insensitive.',
    example: 'Credit',
  })
  category?: string;

  @StringField({
    optional: true,
    maxLength: 200,
    description: 'Substring of code, display name or a tag, case-insensitive.',
    example: 'score',
  })
  search?: string;

  /** `true`/`false` in any case, or `1`/`0`, are accepted; the document names the canonical two. */
  @ApiPropertyOptional({
    enum: ['true', 'false'],
    description: 'Include hidden rules (default false; any case, or 1/0).',
  })
  @IsOptional()
  @IsIn(['true', 'false', 'TRUE', 'FALSE', 'True', 'False', '1', '0'])
  includeHidden?: string;
}

/** `POST /api/v1/ui-catalog/snapshots/capture` body (optional). */
export class CaptureSnapshotDto {
  @StringField({
    optional: true,
    maxLength: 200,
    description: 'Free-text label of the snapshot.',
    example: 'before release 4.2',
  })
  label?: string;

  @StringField({
    optional: true,
    maxLength: 256,
    description:
      'Who captures it. With a token the authenticated user (any other name: 403 `ACTOR_MISMATCH`); ' +
      'with authorization disabled this, then `X-Actor`, then `control-plane`.',
    example: 'alice',
  })
  actor?: string;
}
