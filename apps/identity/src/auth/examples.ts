import type { UserPermissions } from './auth.service';
import type { TokenPair } from './token.service';
import type { UserView } from './user-role-crud';

/** Examples of the main auth routes' bodies in the OpenAPI document (as the spec and the code shape them). */

export const LOGIN_EXAMPLE = { userName: 'alice', password: 'correct-horse-battery' };

export const REGISTER_EXAMPLE = {
  userName: 'alice',
  password: 'correct-horse-battery',
  email: 'alice@example.com',
  displayName: 'Alice Example',
};

export const REFRESH_EXAMPLE = { refreshToken: 'q3Jb0mB2k1N8Yx7vR4tL9pW6sD5fG2hJ0kL3zX8cV1E' };

export const TOKEN_PAIR_EXAMPLE: TokenPair = {
  AccessToken:
    'eyJhbGciOiJSUzI1NiIsImtpZCI6ImtleS0xIiwidHlwIjoiSldUIn0.eyJzdWIiOiIwYjZmNGMxZSJ9.c2lnbmF0dXJl',
  RefreshToken: 'Zk9x2Lm4Qp7Rt1Vw3Yb6Nc8Hd0Jf5Gs2Ka9Ue4Ti7Oo',
  TokenType: 'Bearer',
  ExpiresIn: 900,
  RefreshTokenExpiresAt: '2025-01-22T09:30:00.000Z',
};

export const REGISTERED_USER_EXAMPLE: UserView & { entityId: string } = {
  entityId: '0b6f4c1e-8d1a-4f3e-9a51-2f4b7c9d0e12',
  id: '0b6f4c1e-8d1a-4f3e-9a51-2f4b7c9d0e12',
  userName: 'alice',
  email: 'alice@example.com',
  displayName: 'Alice Example',
  roles: [],
  isActive: true,
  creationTime: '2025-01-15T09:30:00.000Z',
  lastModificationTime: null,
};

export const USER_PERMISSIONS_EXAMPLE: UserPermissions = {
  userId: '0b6f4c1e-8d1a-4f3e-9a51-2f4b7c9d0e12',
  userName: 'alice',
  tenantId: 'default',
  roles: ['Approver'],
  permissions: ['Users.View', 'cp.approver'],
};
