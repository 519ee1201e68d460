import { grants } from '@arbiter/auth';
import { AppError, RequestContext } from '@arbiter/platform';

/**
 * Routes for administrators and operators, not tenants: the caller's token (or API key) must carry the
 * permission `permission` (or `*`), never a role name; anyone else, and any caller when authentication is
 * off (no user), gets 403 FORBIDDEN naming `what`.
 */
export function requireAdministrator(permission: string, what: string): void {
  const user = RequestContext.current()?.user;
  if (!user || !grants(user.permissions, permission))
    throw AppError.forbidden(`${what} is for administrators`);
}
