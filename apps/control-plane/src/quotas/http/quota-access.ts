import { AUTH_OPTIONS, AuthOptions, hasPolicy, Policies } from '@arbiter/auth';
import { AppError, RequestContext } from '@arbiter/platform';
import { Inject, Injectable } from '@nestjs/common';
import { QuotaErrors } from '../application/quota-errors';

/**
 * Spec 1, authentication rule 3: quota endpoints need an authenticated user (the guard's 401)
 * whose tenant is the path's, and the limit changes need the Admin role (the role or the
 * `cp.admin` permission). With authorization disabled the caller's tenant is the resolved one
 * (`x-tenant-id`, else `default`), so the tenant rule still holds, and no role is checked.
 */
@Injectable()
export class QuotaAccess {
  constructor(@Inject(AUTH_OPTIONS) private readonly auth: AuthOptions) {}

  assert(pathTenantId: string, options: { admin?: boolean } = {}): string {
    const callerTenantId = RequestContext.tenantId();
    if (pathTenantId !== callerTenantId)
      throw AppError.forbidden(
        `Tenant '${pathTenantId}' is not the caller's tenant ('${callerTenantId}')`,
        QuotaErrors.TenantMismatch,
      );
    if (!this.auth.enabled) return pathTenantId;
    const user = RequestContext.current()?.user;
    if (!user) throw AppError.unauthorized();
    if (options.admin && !hasPolicy(user, Policies.Admin))
      throw AppError.forbidden('Changing quotas requires the Admin role', QuotaErrors.RoleRequired);
    return pathTenantId;
  }
}
