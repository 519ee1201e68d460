/** Error codes shared by every service. Each service adds its own domain codes beside these. */
export const CommonErrorCodes = {
  BadRequest: 'BAD_REQUEST',
  ValidationFailed: 'VALIDATION_FAILED',
  MalformedJson: 'MALFORMED_JSON',
  /** Valid JSON with a key refused for safety (`__proto__`, or `constructor` holding `prototype`). */
  ForbiddenJsonKey: 'FORBIDDEN_JSON_KEY',
  /** A path (or one of its parameters) longer than the router accepts. */
  UriTooLong: 'URI_TOO_LONG',
  UnsupportedMediaType: 'UNSUPPORTED_MEDIA_TYPE',
  PayloadTooLarge: 'PAYLOAD_TOO_LARGE',
  BodyTooDeep: 'BODY_TOO_DEEP',
  /** A string of the body holds a NUL character or a lone surrogate, which no database stores. */
  InvalidCharacters: 'INVALID_CHARACTERS',
  InvalidContentLength: 'INVALID_CONTENT_LENGTH',
  InvalidUrl: 'INVALID_URL',
  InvalidTenantId: 'INVALID_TENANT_ID',
  RouteNotFound: 'ROUTE_NOT_FOUND',
  MethodNotAllowed: 'METHOD_NOT_ALLOWED',
  NotFound: 'NOT_FOUND',
  Conflict: 'CONFLICT',
  UnprocessableEntity: 'UNPROCESSABLE_ENTITY',
  Unauthorized: 'UNAUTHORIZED',
  Forbidden: 'FORBIDDEN',
  /** A body `actor` or `X-Actor` names someone other than the authenticated caller (who acted is who is authenticated). */
  ActorMismatch: 'ACTOR_MISMATCH',
  RateLimited: 'RATE_LIMITED',
  ServiceUnavailable: 'SERVICE_UNAVAILABLE',
  InternalError: 'INTERNAL_ERROR',
  /** A status no other code names (an HTTP error raised by a library). */
  HttpError: 'HTTP_ERROR',
  /** `License:EnforceOnMiddleware`: the service's license proof is missing, invalid, expired or revoked (403). */
  LicenseInvalid: 'LICENSE_INVALID',
  /** `License:EnforceOnMiddleware`: the license does not grant the route's capability key (403). */
  LicenseFeatureRequired: 'LICENSE_FEATURE_REQUIRED',
} as const;

/** Body of every decisions-service and control-plane error. */
export interface ErrorBody {
  error: string;
  code: string;
  traceId: string;
  /** One entry per bad field, on validation failures. */
  details?: { field: string; message: string }[];
}

/** Envelope of identity's hosted endpoints (success and failure alike). */
export interface HostedEnvelope<T = unknown> {
  isSuccess: boolean;
  result: T | null;
  errors: { code: string; message: string }[];
  timestamp: string;
}

/** Error body of the experience service. */
export interface ExperienceErrorBody {
  error: string;
  code: string;
  timestamp: string;
}
