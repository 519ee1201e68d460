/** Stable `code` values of identity's auth endpoints (in the hosted envelope's `errors[].code`). */
export const AuthErrors = {
  /** Login: unknown user, wrong password or inactive account (401, never saying which). */
  InvalidCredentials: 'INVALID_CREDENTIALS',
  /** Register while `IdentityAuth:AllowSelfRegistration` is off (403). */
  RegistrationDisabled: 'REGISTRATION_DISABLED',
  /** Register into a tenant that already has users and is not open to self-registration (403). */
  TenantClosed: 'TENANT_CLOSED',
  /** Granting (or changing a holder of) a permission or role the caller does not hold itself (403). */
  NotHeld: 'PERMISSION_NOT_HELD',
  /** Assigning a role that does not exist in the tenant (400). */
  UnknownRole: 'UNKNOWN_ROLE',
  /** Refresh: no, a too old or a foreign access token, or an unknown, revoked or expired refresh token (401). */
  RefreshTokenInvalid: 'REFRESH_TOKEN_INVALID',
  /** Refresh with an access token that has not expired yet (beyond `IdentityAuth:RefreshEarlySeconds`) (401). */
  AccessTokenNotExpired: 'ACCESS_TOKEN_NOT_EXPIRED',
  /** Refresh with an already rotated refresh token: the whole session was revoked (401). */
  RefreshTokenReused: 'REFRESH_TOKEN_REUSED',
  /** Logout by a caller authenticated otherwise than with an access token (an API key) (400). */
  NotAToken: 'NOT_A_TOKEN',
  /** Key rotation while the signing key comes from configuration (409). */
  KeysConfigured: 'KEYS_CONFIGURED',
  /** User permissions of an unknown user (404). */
  UserNotFound: 'NOT_FOUND',
  /** A user with this name already exists in the tenant (409, register and `POST /users`). */
  UserNameTaken: 'USER_NAME_TAKEN',
  /** A role with this name already exists in the tenant (409, create-role and `POST /roles`). */
  RoleExists: 'ROLE_EXISTS',
} as const;
