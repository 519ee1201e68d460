import type { AuthenticatedUser } from '@arbiter/platform';

export type PermissionMatchMode = 'All' | 'Any';

export interface PermissionRequirement {
  key: string;
  mode: PermissionMatchMode;
}

/**
 * Whether a permission set grants `key`: exact match, the wildcard `*`, or a prefix wildcard
 * (`Users.*` grants `Users.View`). Comparison is case-insensitive.
 */
export function grants(permissions: readonly string[], key: string): boolean {
  const wanted = key.toLowerCase();
  return permissions.some((p) => {
    const held = p.toLowerCase();
    if (held === '*' || held === wanted) return true;
    return held.endsWith('.*') && wanted.startsWith(held.slice(0, -1));
  });
}

/**
 * Whether a holder of `held` may hand out `requested` (a permission key, possibly a wildcard) without
 * gaining anything: `*` only from `*`; `Prefix.*` only from `*` or a prefix wildcard at or above it;
 * a plain key from anything that grants it. Nobody grants what they do not hold.
 */
export function coversPermission(held: readonly string[], requested: string): boolean {
  const wanted = requested.toLowerCase();
  if (!wanted.includes('*')) return grants(held, wanted);
  if (wanted === '*') return held.includes('*');
  if (!wanted.endsWith('.*') || wanted.slice(0, -2).includes('*')) return held.includes('*');
  const prefix = wanted.slice(0, -1);
  return held.some((p) => {
    const h = p.toLowerCase();
    return h === '*' || (h.endsWith('.*') && prefix.startsWith(h.slice(0, -1)));
  });
}

/**
 * Spec semantics of repeatable permission attributes: every All-mode key is required, and when
 * there are Any-mode keys at least one of them must hold. Mixed: all All AND at least one Any.
 */
export function satisfies(
  permissions: readonly string[],
  requirements: readonly PermissionRequirement[],
): boolean {
  const all = requirements.filter((r) => r.mode === 'All');
  const any = requirements.filter((r) => r.mode === 'Any');
  if (!all.every((r) => grants(permissions, r.key))) return false;
  return any.length === 0 || any.some((r) => grants(permissions, r.key));
}

/** Control-plane policies (spec 1). */
export const Policies = {
  Admin: 'cp.admin',
  Approver: 'cp.approver',
  Viewer: 'cp.viewer',
} as const;
export type PolicyName = (typeof Policies)[keyof typeof Policies];

/**
 * The exact role names (case-sensitive) that hold a policy besides the permission claim: identity's
 * seeded `Admin` role and the `Approver` / `Viewer` roles an operator may create. Nothing else (no
 * `Administrator`, no case or name pattern). Identity treats these policies as permissions of the role
 * when it checks who may assign it, and puts only existing roles in the `roles` claim.
 */
export const POLICY_ROLES: Readonly<Record<PolicyName, readonly string[]>> = {
  'cp.admin': ['Admin'],
  'cp.approver': ['Approver'],
  'cp.viewer': ['Viewer'],
};

/** The policies a role holds by its exact name (see `POLICY_ROLES`). */
export function policiesOfRole(roleName: string): PolicyName[] {
  return (Object.keys(POLICY_ROLES) as PolicyName[]).filter((p) => POLICY_ROLES[p].includes(roleName));
}

/** Policies imply the weaker ones: admin can do everything, an approver can also read. */
const POLICY_IMPLIED_BY: Record<PolicyName, PolicyName[]> = {
  'cp.admin': [],
  'cp.approver': ['cp.admin'],
  'cp.viewer': ['cp.approver', 'cp.admin'],
};

/**
 * A policy holds through the `permissions` claim (the policy name, `cp.*` or `*`; a stronger policy
 * implies the weaker) or a role of the exact list `POLICY_ROLES`.
 */
export function hasPolicy(
  user: Pick<AuthenticatedUser, 'roles' | 'permissions'>,
  policy: PolicyName,
): boolean {
  const direct = (p: PolicyName) =>
    user.roles.some((r) => POLICY_ROLES[p].includes(r)) || grants(user.permissions, p);
  return direct(policy) || POLICY_IMPLIED_BY[policy].some(direct);
}

/** Policies the user holds (used by `GET /api/v1/control-plane/me`). */
export function policiesOf(user: Pick<AuthenticatedUser, 'roles' | 'permissions'>): PolicyName[] {
  return (Object.values(Policies) as PolicyName[]).filter((p) => hasPolicy(user, p));
}
