import { CommonErrorCodes } from '@arbiter/contracts';

export interface FieldProblem {
  field: string;
  message: string;
}

/**
 * A failure the caller can act on: an HTTP status, a stable code naming the problem, a message, and
 * for validation failures one entry per bad field. Application services throw these; the exception
 * filter turns them into the service's envelope.
 */
export class AppError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: FieldProblem[],
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.name = 'AppError';
  }

  static badRequest(code: string, message: string, details?: FieldProblem[]) {
    return new AppError(400, code, message, details);
  }
  static validation(details: FieldProblem[], message = 'Request validation failed') {
    return new AppError(400, CommonErrorCodes.ValidationFailed, message, details);
  }
  static unauthorized(
    message = 'Missing or invalid credentials',
    code: string = CommonErrorCodes.Unauthorized,
  ) {
    return new AppError(401, code, message);
  }
  static forbidden(message = 'Not allowed', code: string = CommonErrorCodes.Forbidden) {
    return new AppError(403, code, message);
  }
  static notFound(code: string, message: string) {
    return new AppError(404, code, message);
  }
  static conflict(code: string, message: string) {
    return new AppError(409, code, message);
  }
  static unprocessable(code: string, message: string, details?: FieldProblem[]) {
    return new AppError(422, code, message, details);
  }
  static tooManyRequests(retryAfterSeconds: number, message = 'Rate limit exceeded') {
    return new AppError(429, CommonErrorCodes.RateLimited, message, undefined, {
      'retry-after': String(Math.max(1, Math.ceil(retryAfterSeconds))),
    });
  }
}
