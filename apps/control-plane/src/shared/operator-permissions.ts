/**
 * Permissions of the control plane's operator routes, decided by the token's permission claim alone
 * (never by a role name): a holder of `*` or `control-plane.*` has them too. The node-wide metrics
 * count every tenant's traffic, so a tenant's viewer may not read them.
 */
export const ControlPlanePermissions = {
  /** `GET /api/v1/control-plane/metrics`, `…/execution/metrics`, `…/execution-audit/metrics`. */
  Metrics: 'control-plane.metrics',
} as const;

/** The description sentence of a node-wide metrics route. */
export const METRICS_PERMISSION_NOTE =
  "The counts cover every tenant, so they are for operators: the permission `control-plane.metrics` (or `*`, or `control-plane.*`) in the token's permission claim; anyone else gets 403 `FORBIDDEN`. Open when authorization is disabled.";
