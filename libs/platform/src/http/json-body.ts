import { CommonErrorCodes } from '@arbiter/contracts';
import secureJson from 'secure-json-parse';
import { AppError } from '../errors/app-error';

const BYTE_ORDER_MARK = 0xfeff;

/** Set on errors of reading a request body: the connection is not reused after the answer. */
export const BODY_PARSE_ERROR = Symbol('bodyParseError');

export function isBodyParseError(error: unknown): boolean {
  return (
    typeof error === 'object' &&
    error !== null &&
    (error as { [BODY_PARSE_ERROR]?: boolean })[BODY_PARSE_ERROR] === true
  );
}

/** Fastify's error for a body that is not JSON (its code and message, so both paths answer alike). */
export class InvalidJsonBodyError extends Error {
  readonly code = 'FST_ERR_CTP_INVALID_JSON_BODY';
  readonly statusCode = 400;
  constructor() {
    super("Body is not valid JSON but content-type is set to 'application/json'");
  }
}

/** 400 `FORBIDDEN_JSON_KEY`: valid JSON, but a key that could reach `Object.prototype` when merged. */
export function forbiddenJsonKey(key: '__proto__' | 'constructor'): AppError {
  return Object.assign(
    AppError.badRequest(
      CommonErrorCodes.ForbiddenJsonKey,
      key === '__proto__'
        ? "The JSON key '__proto__' is refused (it could alter object prototypes): rename the key"
        : "A JSON key 'constructor' holding an object with a 'prototype' key is refused (it could alter object prototypes)",
    ),
    // Fastify answers an error of its body parser with `connection: close`; the hot routes' fast path reads this
    { statusCode: 400, [BODY_PARSE_ERROR]: true },
  );
}

/**
 * A JSON request body as every service reads it (Fastify's parser and the hot routes' fast path): an
 * empty body is no body (`undefined`: many clients send `content-type: application/json` on a POST or
 * DELETE without one), prototype poisoning (`__proto__`, `constructor.prototype`) is refused with 400
 * `FORBIDDEN_JSON_KEY`, anything else that does not parse is Fastify's `FST_ERR_CTP_INVALID_JSON_BODY`.
 */
export function parseJsonRequestBody(text: string): unknown {
  if (text.length === 0) return undefined;
  if (
    text.charCodeAt(0) !== BYTE_ORDER_MARK &&
    text.indexOf('\\') < 0 &&
    text.indexOf('__proto__') < 0 &&
    text.indexOf('constructor') < 0
  ) {
    try {
      return JSON.parse(text);
    } catch {
      throw new InvalidJsonBodyError();
    }
  }
  try {
    return secureJson.parse(text, undefined, { protoAction: 'error', constructorAction: 'error' });
  } catch (error) {
    const message = error instanceof Error ? error.message : '';
    if (/forbidden prototype property/.test(message)) throw forbiddenJsonKey('__proto__');
    if (/forbidden constructor property/.test(message)) throw forbiddenJsonKey('constructor');
    throw new InvalidJsonBodyError();
  }
}
