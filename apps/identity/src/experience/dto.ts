import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsNotEmpty,
  IsNumber,
  IsObject,
  IsOptional,
  IsString,
  IsUUID,
  Max,
  MaxLength,
  Min,
  ValidateNested,
} from 'class-validator';

export class InterceptDto {
  @ApiProperty({ example: 'Bash' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  toolName!: string;

  @ApiProperty({ type: 'object', additionalProperties: true, example: { command: 'npm test' } })
  @IsObject()
  toolInput!: Record<string, unknown>;

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    description: '`workspace` (or `cwd`), `sessionId`, `task`… as the hook knows them',
  })
  @IsOptional()
  @IsObject()
  context?: Record<string, unknown>;
}

export class InterceptView {
  @ApiProperty({ type: String, nullable: true })
  suggestions!: string | null;
  @ApiProperty()
  hasSuggestions!: boolean;
}

export class OutcomeDto {
  @ApiProperty()
  @IsBoolean()
  success!: boolean;

  @ApiProperty({ type: String, nullable: true })
  @IsOptional()
  @IsString()
  @MaxLength(20_000)
  error!: string | null;

  @ApiProperty()
  @IsNumber()
  @Min(0)
  duration_ms!: number;
}

export class PostToolDto {
  @ApiProperty()
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  toolName!: string;

  @ApiProperty({ type: 'object', additionalProperties: true })
  @IsObject()
  toolInput!: Record<string, unknown>;

  @ApiProperty({ type: OutcomeDto })
  @ValidateNested()
  @Type(() => OutcomeDto)
  outcome!: OutcomeDto;

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    description: 'The suggestion text intercept returned',
  })
  @IsOptional()
  @IsString()
  @MaxLength(50_000)
  suggestions?: string | null;

  @ApiPropertyOptional({ type: 'object', additionalProperties: true })
  @IsOptional()
  @IsObject()
  context?: Record<string, unknown>;
}

export class JudgeJobView {
  @ApiProperty({ format: 'uuid' })
  judgeJobId!: string;
}

export class ExtractDto {
  @ApiProperty()
  @IsString()
  @IsNotEmpty()
  @MaxLength(500_000)
  transcript!: string;

  @ApiProperty()
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  sessionId!: string;

  @ApiProperty()
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  agent!: string;

  @ApiProperty()
  @IsString()
  @IsNotEmpty()
  @MaxLength(500)
  workspace!: string;
}

export class LessonView {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty() pattern!: string;
  @ApiProperty() confidence!: number;
  @ApiProperty({ enum: ['T0', 'T1', 'T2', 'T3'] }) tier!: string;
  @ApiProperty() text!: string;
}

export class ExtractView {
  @ApiProperty({ type: [LessonView] }) lessons!: LessonView[];
  @ApiProperty() count!: number;
  @ApiProperty({ enum: ['heuristic', 'model'], description: 'Which path read the transcript' })
  extractor!: string;
}

export class EvolveView {
  @ApiProperty() promoted!: number;
  @ApiProperty() abstracted!: number;
  @ApiProperty() archived!: number;
  @ApiProperty({ format: 'date-time' }) timestamp!: string;
}

export class FeedbackDto {
  @ApiProperty({ format: 'uuid' })
  @IsUUID()
  pointId!: string;

  @ApiProperty({ example: 'lessons' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(100)
  collection!: string;

  @ApiProperty({ enum: ['followed', 'ignored', 'irrelevant'] })
  @IsIn(['followed', 'ignored', 'irrelevant'])
  verdict!: 'followed' | 'ignored' | 'irrelevant';
}

export class FeedbackView {
  @ApiProperty() recorded!: boolean;
  @ApiProperty() verdict!: string;
  @ApiProperty() pointId!: string;
  @ApiProperty() collection!: string;
}

export class RouteModelDto {
  @ApiProperty()
  @IsString()
  @IsNotEmpty()
  @MaxLength(10_000)
  task!: string;

  @ApiPropertyOptional({ example: 'claude-code' })
  @IsOptional()
  @IsString()
  @MaxLength(100)
  runtime?: string;

  @ApiPropertyOptional({ example: 'high' })
  @IsOptional()
  @IsString()
  @MaxLength(100)
  complexity_hint?: string;
}

export class RouteTaskContextDto {
  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(500) repo?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(1000) scope?: string;
}

export class RouteTaskDto {
  @ApiProperty()
  @IsString()
  @IsNotEmpty()
  @MaxLength(10_000)
  task!: string;

  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  @MaxLength(100)
  runtime?: string;

  @ApiPropertyOptional({ type: RouteTaskContextDto })
  @IsOptional()
  @ValidateNested()
  @Type(() => RouteTaskContextDto)
  context?: RouteTaskContextDto;
}

export class BrainMessageDto {
  @ApiProperty({ enum: ['system', 'user', 'assistant'] })
  @IsIn(['system', 'user', 'assistant'])
  role!: 'system' | 'user' | 'assistant';

  @ApiProperty()
  @IsString()
  @MaxLength(100_000)
  content!: string;
}

export class BrainDto {
  @ApiProperty({ type: [BrainMessageDto] })
  @IsArray()
  @ArrayMaxSize(200)
  @ValidateNested({ each: true })
  @Type(() => BrainMessageDto)
  messages!: BrainMessageDto[];

  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  @MaxLength(200)
  model?: string;

  @ApiPropertyOptional()
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(100_000)
  maxTokens?: number;
}

export class ShareDto {
  @ApiProperty({ format: 'uuid' })
  @IsUUID()
  id!: string;

  @ApiPropertyOptional({ enum: ['json'], default: 'json' })
  @IsOptional()
  @IsString()
  format?: string;
}

export class ImportedPrincipleDto {
  @ApiProperty()
  @IsString()
  @IsNotEmpty()
  @MaxLength(5000)
  text!: string;

  @ApiPropertyOptional()
  @IsOptional()
  @IsNumber()
  @Min(0)
  @Max(1)
  confidence?: number;

  @ApiPropertyOptional({ type: [String] })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(50)
  @IsString({ each: true })
  @MaxLength(2000, { each: true })
  sourceExamples?: string[];

  @ApiPropertyOptional({ type: [String] })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(50)
  @IsString({ each: true })
  @MaxLength(100, { each: true })
  tags?: string[];
}

export class ImportDto {
  @ApiProperty({ type: ImportedPrincipleDto })
  @ValidateNested()
  @Type(() => ImportedPrincipleDto)
  principle!: ImportedPrincipleDto;

  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  @MaxLength(200)
  source?: string;
}

export class PilContextDto {
  @ApiProperty()
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  toolName!: string;

  @ApiProperty({ type: 'object', additionalProperties: true })
  @IsObject()
  toolInput!: Record<string, unknown>;

  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  @MaxLength(500)
  workspace?: string;
}
