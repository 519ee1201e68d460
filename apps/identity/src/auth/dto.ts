import { AppError, EnumField, StringField } from '@arbiter/platform';
import { PickType } from '@nestjs/swagger';
import { CreateUserDto } from './user-role-crud';

/** Self-registration: a new user's name, password and profile (roles and activation are the admin's). */
export class RegisterDto extends PickType(CreateUserDto, [
  'userName',
  'password',
  'email',
  'displayName',
] as const) {}

export class LoginDto {
  @StringField({ minLength: 1, maxLength: 256, description: 'User name (or e-mail)', example: 'alice' })
  userName: string;

  @StringField({ minLength: 1, maxLength: 256, example: 'correct-horse-battery' })
  password: string;
}

export class RefreshTokenDto {
  @StringField({
    minLength: 1,
    maxLength: 512,
    description: 'The refresh token of the last login or refresh (single use)',
    example: 'q3Jb0mB2k1N8Yx7vR4tL9pW6sD5fG2hJ0kL3zX8cV1E',
  })
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
  @EnumField(['routing'], {
    optional: true,
    description: '`routing`: only the routes (`{ version, routes }`) instead of the full entries',
  })
  minimalFor?: string;
}
