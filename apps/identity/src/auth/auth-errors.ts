/** Stable `code` values of identity's auth endpoints (in the hosted envelope's `errors[].code`). */
export const AuthErrors = {
  InvalidCredentials: 'INVALID_CREDENTIALS',
  RegistrationDisabled: 'REGISTRATION_DISABLED',
  RefreshTokenInvalid: 'REFRESH_TOKEN_INVALID',
  RefreshTokenReused: 'REFRESH_TOKEN_REUSED',
  NotAToken: 'NOT_A_TOKEN',
  KeysConfigured: 'KEYS_CONFIGURED',
  UserNotFound: 'NOT_FOUND',
} as const;
