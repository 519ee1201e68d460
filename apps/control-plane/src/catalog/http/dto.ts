import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, MaxLength } from 'class-validator';

/** `GET /api/v1/rule-catalog` query. */
export class RuleCatalogQueryDto {
  @ApiPropertyOptional({ description: 'Exact category, case-insensitive' })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  category?: string;

  @ApiPropertyOptional({ description: 'Substring of code, display name or a tag, case-insensitive' })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  search?: string;

  @ApiPropertyOptional({ description: 'Include hidden rules (default false)', enum: ['true', 'false'] })
  @IsOptional()
  @IsIn(['true', 'false', 'TRUE', 'FALSE', 'True', 'False', '1', '0'])
  includeHidden?: string;
}

/** `POST /api/v1/ui-catalog/snapshots/capture` body (optional). */
export class CaptureSnapshotDto {
  @ApiPropertyOptional({ description: 'Free-text label of the snapshot' })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  label?: string;

  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  @MaxLength(256)
  actor?: string;
}
