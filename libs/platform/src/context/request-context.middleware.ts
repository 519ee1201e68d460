import { Injectable, NestMiddleware } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { AppError } from '../errors/app-error';
import { RequestContext, resolveTenant } from './request-context';

const TENANT_ID = /^[A-Za-z0-9._:@-]{1,128}$/;

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * First step of the pipeline: opens the request context (correlation id, tenant from header or the
 * ambient default, header actor). Authentication later upgrades the tenant from the token claim.
 */
@Injectable()
export class RequestContextMiddleware implements NestMiddleware {
  use(req: IncomingMessage, res: ServerResponse, next: () => void): void {
    const incoming = header(req, 'x-correlation-id') ?? header(req, 'x-request-id');
    const correlationId = incoming && /^[\w.:-]{1,128}$/.test(incoming) ? incoming : randomUUID();
    const rawTenant = header(req, 'x-tenant-id')?.trim();
    res.setHeader('x-correlation-id', correlationId);
    if (rawTenant && !TENANT_ID.test(rawTenant)) {
      // Refused before anything runs: a tenant id ends up in SQL settings, logs and keys.
      return RequestContext.run({ correlationId }, () => {
        throw AppError.badRequest(
          'INVALID_TENANT_ID',
          'x-tenant-id must be 1-128 characters of letters, digits, . _ : @ -',
        );
      });
    }
    const headerTenantId = rawTenant || undefined;
    RequestContext.run(
      {
        correlationId,
        headerTenantId,
        headerActor: header(req, 'x-actor')?.slice(0, 256),
        tenantId: resolveTenant({ headerTenantId, ambientTenantId: RequestContext.current()?.tenantId }),
      },
      next,
    );
  }
}
