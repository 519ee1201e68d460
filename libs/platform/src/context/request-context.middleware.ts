import { CommonErrorCodes } from '@arbiter/contracts';
import { Injectable, NestMiddleware } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { AppError } from '../errors/app-error';
import { RequestContext, RequestContextData, resolveTenant } from './request-context';

/** What an `x-tenant-id` header may hold (it ends up in SQL settings, logs and keys). */
export const TENANT_ID = /^[A-Za-z0-9._:@-]{1,128}$/;
/** What an incoming `x-correlation-id` may hold (anything else is replaced by a fresh id). */
export const CORRELATION_ID = /^[\w.:-]{1,128}$/;

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * The request context a request opens (correlation id, tenant from header or the ambient default, header
 * actor), with `x-correlation-id` set on the response when one is given. Throws a 400 `INVALID_TENANT_ID` (with `correlationId`
 * on the error) for a malformed `x-tenant-id`: a tenant id ends up in SQL settings, logs and keys.
 */
export function requestContextFor(req: IncomingMessage, res?: ServerResponse): Partial<RequestContextData> {
  const incoming = header(req, 'x-correlation-id') ?? header(req, 'x-request-id');
  const correlationId = incoming && CORRELATION_ID.test(incoming) ? incoming : randomUUID();
  const rawTenant = header(req, 'x-tenant-id')?.trim();
  res?.setHeader('x-correlation-id', correlationId);
  if (rawTenant && !TENANT_ID.test(rawTenant))
    throw Object.assign(
      AppError.badRequest(
        CommonErrorCodes.InvalidTenantId,
        'x-tenant-id must be 1-128 characters of letters, digits, . _ : @ -',
      ),
      { correlationId },
    );
  const headerTenantId = rawTenant || undefined;
  return {
    correlationId,
    headerTenantId,
    headerActor: header(req, 'x-actor')?.slice(0, 256),
    tenantId: resolveTenant({ headerTenantId, ambientTenantId: RequestContext.current()?.tenantId }),
  };
}

/**
 * First step of the pipeline: opens the request context (correlation id, tenant from header or the
 * ambient default, header actor). Authentication later upgrades the tenant from the token claim.
 */
@Injectable()
export class RequestContextMiddleware implements NestMiddleware {
  use(req: IncomingMessage, res: ServerResponse, next: () => void): void {
    let context: Partial<RequestContextData>;
    try {
      context = requestContextFor(req, res);
    } catch (error) {
      // Refused before anything runs, inside a context that carries the correlation id for the error body.
      const correlationId = (error as { correlationId?: string }).correlationId;
      return RequestContext.run({ correlationId }, () => {
        throw error;
      });
    }
    RequestContext.run(context, next);
  }
}
