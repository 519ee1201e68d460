import { AppError, RequestContext } from '@arbiter/platform';

/**
 * Routes for administrators and operators, not tenants: the caller needs the role `Admin`, one of
 * `roles`, or the permission `permission` (or `*`); anyone else, and any caller when authentication is
 * off (no user), gets 403 FORBIDDEN naming `what`.
 */
export function requireAdministrator(permission: string, what: string, roles: readonly string[] = []): void {
  const user = RequestContext.current()?.user;
  const allowed =
    !!user &&
    (user.roles.includes('Admin') ||
      roles.some((r) => user.roles.includes(r)) ||
      user.permissions.includes(permission) ||
      user.permissions.includes('*'));
  if (!allowed) throw AppError.forbidden(`${what} is for administrators`);
}
