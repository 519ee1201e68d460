import { RequirePermissions } from '@arbiter/auth';
import { applyDecorators } from '@nestjs/common';

/**
 * The decision-table permissions (keys in the token's `permissions` claim, granted by identity roles),
 * like the control plane's policies, each implying the ones below it:
 *
 * - `decisions.viewer`: read tables, versions, diffs, audit trails and exports; evaluate and execute;
 *   validate and analyse (nothing is written); the FEEL helpers; the tool-protocol tools.
 * - `decisions.author`: also create, update and import tables.
 * - `decisions.admin`: also delete tables.
 *
 * `*` and `decisions.*` grant all three. The global audit (every tenant) needs
 * `decision-tables.audit.global` besides.
 */
export const DecisionsPermissions = {
  Viewer: 'decisions.viewer',
  Author: 'decisions.author',
  Admin: 'decisions.admin',
} as const;

export type DecisionsAccess = 'viewer' | 'author' | 'admin';

const IMPLIED_BY: Record<DecisionsAccess, string[]> = {
  viewer: [DecisionsPermissions.Viewer, DecisionsPermissions.Author, DecisionsPermissions.Admin],
  author: [DecisionsPermissions.Author, DecisionsPermissions.Admin],
  admin: [DecisionsPermissions.Admin],
};

/** The permission requirements of an access level: any permission at or above it (Any mode). */
export function decisionsRequirements(level: DecisionsAccess) {
  return IMPLIED_BY[level].map((key) => ({ key, mode: 'Any' as const }));
}

/** `@RequirePermissions(...)` for an access level: one of the permissions at or above it. */
export function RequireDecisionsAccess(level: DecisionsAccess) {
  return applyDecorators(...IMPLIED_BY[level].map((key) => RequirePermissions(key, 'Any')));
}
