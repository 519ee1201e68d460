/**
 * UI manifest served by identity at `GET /api/v1/auth/ui-engine/current`. Each service contributes its
 * entries statically here (the catalogue is code, versioned with the services that own the routes);
 * identity merges them and keeps the entries the caller's permissions allow.
 */
export interface UiManifestEntry {
  /** Stable id, e.g. `decision-tables`. */
  id: string;
  /** Owning service: `control-plane`, `decisions` or `identity`. */
  service: 'control-plane' | 'decisions' | 'identity';
  title: string;
  /** Client route. */
  route: string;
  /** API base the screen talks to (relative to the service). */
  api: string;
  icon?: string;
  /** Permission needed to see the entry (`*`-style wildcards honoured); none = every authenticated user. */
  requiredPermission?: string;
  /** Control-plane policy needed instead of a permission. */
  requiredPolicy?: 'cp.admin' | 'cp.approver' | 'cp.viewer';
  order: number;
}

export interface UiManifest {
  version: number;
  generatedAt: string;
  entries: UiManifestEntry[];
}

/** `minimalFor=routing`: only what a client router needs. */
export interface UiRoutingManifest {
  version: number;
  routes: { id: string; route: string; service: UiManifestEntry['service'] }[];
}

export const UI_MANIFEST_VERSION = 1;

/** Static contributions, one block per service. Add a screen by adding an entry to its service's list. */
export const UI_MANIFEST_CONTRIBUTIONS: Record<UiManifestEntry['service'], UiManifestEntry[]> = {
  'control-plane': [
    {
      id: 'rule-sets',
      service: 'control-plane',
      title: 'Rule sets',
      route: '/rules',
      api: '/api/v1/control-plane',
      requiredPolicy: 'cp.viewer',
      order: 10,
    },
    {
      id: 'approvals',
      service: 'control-plane',
      title: 'Approvals',
      route: '/approvals',
      api: '/api/v1/control-plane',
      requiredPolicy: 'cp.approver',
      order: 20,
    },
  ],
  decisions: [
    {
      id: 'decision-tables',
      service: 'decisions',
      title: 'Decision tables',
      route: '/decision-tables',
      api: '/api/v1/decision-tables',
      order: 30,
    },
  ],
  identity: [
    {
      id: 'users',
      service: 'identity',
      title: 'Users',
      route: '/admin/users',
      api: '/api/v1/users',
      requiredPermission: 'Users.View',
      order: 90,
    },
    {
      id: 'roles',
      service: 'identity',
      title: 'Roles',
      route: '/admin/roles',
      api: '/api/v1/roles',
      requiredPermission: 'Roles.View',
      order: 91,
    },
  ],
};
