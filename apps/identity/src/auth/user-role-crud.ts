import { ApiProperty, ApiPropertyOptional, OmitType, PartialType } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsEmail,
  IsOptional,
  IsString,
  Matches,
  MaxLength,
  MinLength,
} from 'class-validator';
import { EntityDefinition } from '../crud';
import { PasswordHasher } from './password-hasher';

/** The users and roles served by the generic CRUD endpoints: their DTOs and `EntityDefinition`s. */

const USER_NAME = /^[A-Za-z0-9._@+-]{1,128}$/;
const PERMISSION = /^[A-Za-z0-9._:*-]{1,128}$/;

export class CreateUserDto {
  @ApiProperty({ example: 'alice' })
  @IsString()
  @Matches(USER_NAME, { message: 'userName must be 1-128 letters, digits or . _ @ + -' })
  userName: string;

  @ApiProperty({ minLength: 8, maxLength: 256 })
  @IsString()
  @MinLength(8)
  @MaxLength(256)
  password: string;

  @ApiPropertyOptional()
  @IsOptional()
  @IsEmail()
  email?: string;

  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  @MaxLength(256)
  displayName?: string;

  @ApiPropertyOptional({ type: [String], description: 'role names' })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(64)
  @IsString({ each: true })
  roles?: string[];

  @ApiPropertyOptional()
  @IsOptional()
  @IsBoolean()
  isActive?: boolean;
}

/** Every field of a new user but its name, each optional. */
export class UpdateUserDto extends PartialType(OmitType(CreateUserDto, ['userName'] as const)) {}

export class CreateRoleDto {
  @ApiProperty({ example: 'Approver' })
  @IsString()
  @Matches(/^[A-Za-z0-9._ -]{1,64}$/, { message: 'name must be 1-64 letters, digits, spaces or . _ -' })
  name: string;

  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  @MaxLength(512)
  description?: string;

  @ApiPropertyOptional({ type: [String], example: ['Users.View', 'cp.approver'] })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(256)
  @Matches(PERMISSION, { each: true, message: 'each permission must be 1-128 letters, digits or . _ : * -' })
  permissions?: string[];
}

export class UpdateRoleDto {
  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  @MaxLength(512)
  description?: string;

  @ApiPropertyOptional({ type: [String] })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(256)
  @Matches(PERMISSION, { each: true, message: 'each permission must be 1-128 letters, digits or . _ : * -' })
  permissions?: string[];
}

export function userDefinition(hasher: PasswordHasher): EntityDefinition {
  return {
    plural: 'users',
    permissionPrefix: 'Users',
    table: 'auth_users',
    fields: {
      userName: 'user_name',
      email: 'email',
      displayName: 'display_name',
      roles: 'roles',
      isActive: 'is_active',
    },
    writable: {
      userName: 'user_name',
      email: 'email',
      displayName: 'display_name',
      roles: 'roles',
      isActive: 'is_active',
    },
    createDto: CreateUserDto,
    updateDto: UpdateUserDto,
    conflictCode: 'USER_NAME_TAKEN',
    async prepare(dto) {
      return typeof dto.password === 'string' ? { password_hash: await hasher.hash(dto.password) } : {};
    },
  };
}

export const ROLE_DEFINITION: EntityDefinition = {
  plural: 'roles',
  permissionPrefix: 'Roles',
  table: 'auth_roles',
  fields: { name: 'name', description: 'description', permissions: 'permissions' },
  createDto: CreateRoleDto,
  updateDto: UpdateRoleDto,
  conflictCode: 'ROLE_EXISTS',
};
