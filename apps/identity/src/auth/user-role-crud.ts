import { ArrayField, BooleanField, StringField } from '@arbiter/platform';
import { applyDecorators } from '@nestjs/common';
import { ApiProperty, OmitType, PartialType } from '@nestjs/swagger';
import { IsEmail, Matches } from 'class-validator';
import { EntityDefinition } from '../crud';
import { AuthErrors } from './auth-errors';
import { PasswordHasher } from './password-hasher';

/** The users and roles served by the generic CRUD endpoints: their DTOs, views and `EntityDefinition`s. */

const USER_NAME = /^[A-Za-z0-9._@+-]{1,128}$/;
const ROLE_NAME = /^[A-Za-z0-9._ -]{1,64}$/;
const PERMISSION = /^[A-Za-z0-9._:*-]{1,128}$/;
const PERMISSION_MESSAGE = 'each permission must be 1-128 letters, digits or . _ : * -';

/** A list of permission keys: the array rules of `ArrayField` plus the key pattern on every item. */
function PermissionsField(options: { description: string; example?: string[] }): PropertyDecorator {
  return applyDecorators(
    ArrayField('string', { optional: true, maxItems: 256, ...options }),
    Matches(PERMISSION, { each: true, message: PERMISSION_MESSAGE }),
    ApiProperty({ items: { type: 'string', pattern: PERMISSION.source } }),
  );
}

export class CreateUserDto {
  @StringField({
    pattern: USER_NAME,
    description: 'Sign-in name, unique in the tenant (case-insensitive): 1-128 letters, digits or . _ @ + -',
    example: 'alice',
  })
  userName: string;

  @StringField({ minLength: 8, maxLength: 256, example: 'correct-horse-battery' })
  password: string;

  @StringField({
    optional: true,
    format: 'email',
    description: 'Also accepted as login name',
    example: 'alice@example.com',
  })
  @IsEmail()
  email?: string;

  @StringField({ optional: true, maxLength: 256, example: 'Alice Example' })
  displayName?: string;

  @ArrayField('string', { optional: true, maxItems: 64, description: 'Role names', example: ['Approver'] })
  roles?: string[];

  @BooleanField({ optional: true, description: 'An inactive user cannot sign in (default true)' })
  isActive?: boolean;
}

/** Every field of a new user but its name, each optional. */
export class UpdateUserDto extends PartialType(OmitType(CreateUserDto, ['userName'] as const)) {}

export class CreateRoleDto {
  @StringField({
    pattern: ROLE_NAME,
    description: 'Unique in the tenant (case-insensitive): 1-64 letters, digits, spaces or . _ -',
    example: 'Approver',
  })
  name: string;

  @StringField({ optional: true, maxLength: 512, example: 'Approves rule set releases' })
  description?: string;

  @PermissionsField({
    description: 'Permission keys the role grants (`*` wildcards honoured)',
    example: ['Users.View', 'cp.approver'],
  })
  permissions?: string[];
}

export class UpdateRoleDto {
  @StringField({ optional: true, maxLength: 512, example: 'Approves rule set releases' })
  description?: string;

  @PermissionsField({ description: 'Replaces the permission keys of the role', example: ['Users.View'] })
  permissions?: string[];
}

/** A user as the CRUD endpoints return it (never its password). */
export class UserView {
  @ApiProperty({ format: 'uuid', example: '0b6f4c1e-8d1a-4f3e-9a51-2f4b7c9d0e12' })
  id: string;

  @ApiProperty({ example: 'alice' })
  userName: string;

  @ApiProperty({ type: String, nullable: true, example: 'alice@example.com' })
  email: string | null;

  @ApiProperty({ type: String, nullable: true, example: 'Alice Example' })
  displayName: string | null;

  @ApiProperty({ type: [String], description: 'Role names', example: ['Approver'] })
  roles: string[];

  @ApiProperty({ example: true })
  isActive: boolean;

  @ApiProperty({ format: 'date-time', example: '2025-01-15T09:30:00.000Z' })
  creationTime: string;

  @ApiProperty({ type: String, format: 'date-time', nullable: true, example: null })
  lastModificationTime: string | null;
}

/** A role as the CRUD endpoints return it. */
export class RoleView {
  @ApiProperty({ format: 'uuid', example: '5d2e8f10-3b7a-4c69-8e0d-6a1f2b3c4d5e' })
  id: string;

  @ApiProperty({ example: 'Approver' })
  name: string;

  @ApiProperty({ type: String, nullable: true, example: 'Approves rule set releases' })
  description: string | null;

  @ApiProperty({ type: [String], example: ['Users.View', 'cp.approver'] })
  permissions: string[];

  @ApiProperty({ format: 'date-time', example: '2025-01-15T09:30:00.000Z' })
  creationTime: string;

  @ApiProperty({ type: String, format: 'date-time', nullable: true, example: null })
  lastModificationTime: string | null;
}

export function userDefinition(hasher: PasswordHasher): EntityDefinition {
  return {
    plural: 'users',
    singular: 'user',
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
    view: UserView,
    conflictCode: AuthErrors.UserNameTaken,
    async prepare(dto) {
      return typeof dto.password === 'string' ? { password_hash: await hasher.hash(dto.password) } : {};
    },
  };
}

export const ROLE_DEFINITION: EntityDefinition = {
  plural: 'roles',
  singular: 'role',
  permissionPrefix: 'Roles',
  table: 'auth_roles',
  fields: { name: 'name', description: 'description', permissions: 'permissions' },
  createDto: CreateRoleDto,
  updateDto: UpdateRoleDto,
  view: RoleView,
  conflictCode: AuthErrors.RoleExists,
};
