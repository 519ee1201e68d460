import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsArray, IsBoolean, IsIn, IsInt, IsObject, IsOptional, IsString, Min } from 'class-validator';

/** `POST /rulesets/{workflowName}/save`: the spec's `rules` form. */
export class SaveRulesDto {
  @ApiProperty({ description: '[{ id, name, condition, output }]', type: 'array', items: { type: 'object' } })
  @IsArray()
  rules!: Record<string, unknown>[];

  @ApiPropertyOptional({ type: 'array', items: { type: 'object' } })
  @IsOptional()
  @IsArray()
  decisionTables?: Record<string, unknown>[];

  @ApiPropertyOptional({
    description: "Condition language: 'lambda' (default, checked for balance) or 'feel' (parsed)",
  })
  @IsOptional()
  @IsIn(['feel', 'lambda'])
  expressionLanguage?: 'feel' | 'lambda';

  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  changeDescription?: string;

  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  actor?: string;
}

/** `POST /api/v1/rule-engine/rulesets/{workflowName}` and `POST /api/v1/control-plane/rulesets/{workflow}`. */
export class SaveRuleSetDto {
  @ApiProperty({
    description: 'Rule set document: rules form, legacy rules-engine JSON, code-based or flow-graph',
  })
  @IsObject()
  ruleSet!: Record<string, unknown>;

  @ApiPropertyOptional({
    description: 'Ignored (never activates) when RuleControlPlane:RequireApproval is true',
  })
  @IsOptional()
  @IsBoolean()
  activateAfterSave?: boolean;

  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  actor?: string;

  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  detail?: string;
}

export class ActivateDto {
  @ApiProperty()
  @IsInt()
  @Min(1)
  version!: number;

  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  detail?: string;

  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  actor?: string;
}

/** Optional body of the path-version activation routes. */
export class ActivateOptionalDto {
  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  detail?: string;

  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  actor?: string;
}

/** Submit / approve (`detail` required) and reject (`reason`, or `detail`, required). */
export class TransitionDto {
  @ApiPropertyOptional({ description: 'Required for submit and approve; accepted as the reason of a reject' })
  @IsOptional()
  @IsString()
  detail?: string;

  @ApiPropertyOptional({ description: 'Mandatory rejection reason (reject)' })
  @IsOptional()
  @IsString()
  reason?: string;

  @ApiPropertyOptional({
    description: 'Reject only: true = final denial, the version becomes Rejected (terminal) instead of Draft',
  })
  @IsOptional()
  @IsBoolean()
  final?: boolean;

  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  actor?: string;
}

export class ExportDto {
  @ApiPropertyOptional({ enum: ['json', 'yaml'] })
  @IsOptional()
  @IsIn(['json', 'yaml'])
  format?: 'json' | 'yaml';

  @ApiPropertyOptional()
  @IsOptional()
  @IsInt()
  @Min(1)
  version?: number;
}

export class InvalidateDto {
  @ApiPropertyOptional({ description: 'One workflow; omitted: every workflow of the tenant' })
  @IsOptional()
  @IsString()
  workflowName?: string;

  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  detail?: string;

  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  actor?: string;
}

export class StoreImportDto {
  @ApiPropertyOptional({
    description: 'Import only versions above this number that are missing here (default: all files)',
  })
  @IsOptional()
  @IsBoolean()
  activateLatest?: boolean;

  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  actor?: string;
}
