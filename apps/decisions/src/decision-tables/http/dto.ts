import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsArray, IsNotEmpty, IsObject, IsOptional, IsString, MaxLength } from 'class-validator';

/** Create/update/validate body. Column and row contents are checked by the rule engine (row/column errors). */
export class DecisionTableDto {
  @ApiProperty()
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  name!: string;

  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  @MaxLength(4000)
  description?: string;

  @ApiProperty({ description: '[{ name, type?, required?, expression? }]' })
  @IsArray()
  inputColumns!: unknown[];

  @ApiProperty({ description: '[{ name, type?, defaultValue?, outputValues? }]' })
  @IsArray()
  outputColumns!: unknown[];

  @ApiProperty({ example: 'First' })
  @IsString()
  hitPolicy!: string;

  @ApiProperty({
    description: '[{ id?, priority?, inputConditions: { column: unaryTest }, outputs: { column: value } }]',
  })
  @IsArray()
  rows!: unknown[];

  @ApiPropertyOptional({ description: 'version history comment' })
  @IsOptional()
  @IsString()
  @MaxLength(2000)
  comment?: string;
}

export class FeelValidateDto {
  @ApiProperty()
  @IsString()
  expression!: string;

  @ApiPropertyOptional({ description: '{ name: type }' })
  @IsOptional()
  @IsObject()
  rowContext?: Record<string, string>;
}

export class FeelEvaluateDto {
  @ApiProperty()
  @IsString()
  expression!: string;

  @ApiPropertyOptional({ description: 'sample input: { name: value }' })
  @IsOptional()
  @IsObject()
  input?: Record<string, unknown>;
}

export class FeelAutocompleteDto {
  @ApiProperty()
  @IsString()
  @MaxLength(100_000)
  expression!: string;

  @ApiPropertyOptional({ description: 'cursor offset (default: end of expression)' })
  @IsOptional()
  cursor?: number;

  @ApiPropertyOptional({ description: 'names in scope (e.g. the input column names)' })
  @IsOptional()
  @IsArray()
  @IsString({ each: true })
  variables?: string[];

  @ApiPropertyOptional({ description: 'table whose input columns are in scope' })
  @IsOptional()
  @IsString()
  tableId?: string;
}
