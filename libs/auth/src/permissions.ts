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

const POLICY_ROLES: Record<PolicyName, string[]> = {
  'cp.admin': ['admin', 'cp.admin', 'administrator'],
  'cp.approver': ['approver', 'cp.approver'],
  'cp.viewer': ['viewer', 'cp.viewer'],
};

/** Policies imply the weaker ones: admin can do everything, an approver can also read. */
const POLICY_IMPLIED_BY: Record<PolicyName, PolicyName[]> = {
  'cp.admin': [],
  'cp.approver': ['cp.admin'],
  'cp.viewer': ['cp.approver', 'cp.admin'],
};

/** A policy holds through a role (`Admin`, `Approver`, `Viewer` or the policy name) or a permission claim. */
export function hasPolicy(
  user: Pick<AuthenticatedUser, 'roles' | 'permissions'>,
  policy: PolicyName,
): boolean {
  const direct = (p: PolicyName) =>
    user.roles.some((r) => POLICY_ROLES[p].includes(r.toLowerCase())) || grants(user.permissions, p);
  return direct(policy) || POLICY_IMPLIED_BY[policy].some(direct);
}

/** Policies the user holds (used by `GET /api/v1/control-plane/me`). */
export function policiesOf(user: Pick<AuthenticatedUser, 'roles' | 'permissions'>): PolicyName[] {
  return (Object.values(Policies) as PolicyName[]).filter((p) => hasPolicy(user, p));
}
