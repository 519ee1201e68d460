import { AppError } from '@arbiter/platform';
import { ApiProperty, ApiPropertyOptional, PickType } from '@nestjs/swagger';
import { CreateUserDto } from './user-role-crud';
import { IsIn, IsOptional, IsString, MaxLength, MinLength } from 'class-validator';

/** Self-registration: a new user's name, password and profile (roles and activation are the admin's). */
export class RegisterDto extends PickType(CreateUserDto, [
  'userName',
  'password',
  'email',
  'displayName',
] as const) {}

export class LoginDto {
  @ApiProperty({ description: 'user name (or e-mail)', example: 'alice' })
  @IsString()
  @MinLength(1)
  @MaxLength(256)
  userName: string;

  @ApiProperty()
  @IsString()
  @MinLength(1)
  @MaxLength(256)
  password: string;
}

export class RefreshTokenDto {
  @ApiProperty()
  @IsString()
  @MinLength(1)
  @MaxLength(512)
  refreshToken: string;
}

/** The refresh token of a body, trimmed: a non-empty string of at most 512 characters, else 400. */
export function readRefreshToken(refreshToken: unknown): string {
  if (typeof refreshToken !== 'string' || !refreshToken.trim() || refreshToken.length > 512) {
    throw AppError.validation([
      { field: 'refreshToken', message: 'refreshToken must be a non-empty string' },
    ]);
  }
  return refreshToken.trim();
}

export class UiManifestQuery {
  @ApiPropertyOptional({ enum: ['routing'] })
  @IsOptional()
  @IsIn(['routing'])
  minimalFor?: string;
}
