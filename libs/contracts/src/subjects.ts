/**
 * Event subjects, `arbiter.<area>.<event>`. Payload types below are the contract between services;
 * the map `EventPayloads` ties each subject to its payload so `publish`/`subscribe` are typed.
 */
export const Subjects = {
  RuleSetChanged: 'arbiter.ruleset.changed',
  CanaryChanged: 'arbiter.canary.changed',
  DecisionTableChanged: 'arbiter.decision-table.changed',
  EventWindowChanged: 'arbiter.event-window.changed',
  EventWindowClosed: 'arbiter.event-window.closed',
  TokenRevoked: 'arbiter.auth.token-revoked',
  LicenseRevoked: 'arbiter.license.revoked',
  LicenseChanged: 'arbiter.license.changed',
  QuotaChanged: 'arbiter.quota.changed',
} as const;

export type Subject = (typeof Subjects)[keyof typeof Subjects];

/** A rule set was saved, activated or its cache invalidated. `revision` increases with every change. */
export interface RuleSetChangedEvent {
  workflowName: string;
  tenantId: string;
  version: number | null;
  /** `saved`, `activated`, `invalidated`, `submitted`, `approved`, `rejected`. */
  change: 'saved' | 'activated' | 'invalidated' | 'submitted' | 'approved' | 'rejected';
  revision: number;
  actor: string;
  occurredAt: string;
}

export interface CanaryChangedEvent {
  rolloutId: string;
  workflowName: string;
  tenantId: string;
  version: number;
  status: 'Active' | 'Promoted' | 'RolledBack';
  occurredAt: string;
}

export interface DecisionTableChangedEvent {
  tableId: string;
  tenantId: string;
  version: number | null;
  change: 'created' | 'updated' | 'deleted';
  occurredAt: string;
}

/** An event-window configuration was saved or deleted: every replica drops its live windows of it. */
export interface EventWindowChangedEvent {
  configId: string;
  tenantId: string;
  version: number | null;
  change: 'created' | 'updated' | 'deleted';
  occurredAt: string;
}

/** A live tumbling or session window closed (configurations with `EmitMode` `OnClose`). */
export interface EventWindowClosedEvent {
  configId: string;
  tenantId: string;
  key: string;
  start: string;
  end: string;
  count: number;
  aggregates: Record<string, unknown>;
}

export interface TokenRevokedEvent {
  jti: string;
  /** ISO timestamp after which the token is expired anyway and the denylist entry can go. */
  expiresAt: string;
  tenantId?: string;
}

export interface LicenseRevokedEvent {
  licenseKey: string;
  reason: string;
  revokedAt: string;
}

/**
 * What the license server's validate answers of a license changed (revoked, features updated, a machine
 * activated): every identity replica drops its cached validate reads of that key.
 */
export interface LicenseChangedEvent {
  licenseKey: string;
  change: 'revoked' | 'features' | 'activated';
  occurredAt: string;
}

/** A tenant's quota tier or limits changed: every control-plane replica reloads them. */
export interface QuotaChangedEvent {
  tenantId: string;
  tier: string;
  occurredAt: string;
}

export interface EventPayloads {
  'arbiter.ruleset.changed': RuleSetChangedEvent;
  'arbiter.canary.changed': CanaryChangedEvent;
  'arbiter.decision-table.changed': DecisionTableChangedEvent;
  'arbiter.event-window.changed': EventWindowChangedEvent;
  'arbiter.event-window.closed': EventWindowClosedEvent;
  'arbiter.auth.token-revoked': TokenRevokedEvent;
  'arbiter.license.revoked': LicenseRevokedEvent;
  'arbiter.license.changed': LicenseChangedEvent;
  'arbiter.quota.changed': QuotaChangedEvent;
}

/**
 * Request/reply subjects (`EventBus.request` / `respond`): `rpc.<service>.<question>`, outside the
 * `arbiter.>` event stream. The request and reply types below are the contract.
 */
export const RequestSubjects = {
  /** control plane: a rule set version's document (`RuleSetVersionRequest` → `RuleSetVersionReply`) */
  RuleSetVersion: 'rpc.control-plane.ruleset-version',
  /** decisions: a version's scenario gate verdict (`ScenarioGateStatusRequest` → `ScenarioGateStatusReply`) */
  ScenarioGateStatus: 'rpc.decisions.scenario-gate-status',
} as const;

/** `version` omitted: the active version. The tenant is the request's. */
export interface RuleSetVersionRequest {
  workflowName: string;
  version?: number;
}

export interface RuleSetVersionReply {
  workflowName: string;
  version: number;
  status: string;
  shape: string;
  ruleSet: Record<string, unknown>;
}

export interface ScenarioGateStatusRequest {
  workflowName: string;
  version: number;
}

/** The latest gate run of that exact version (`NotRun` when none). */
export interface ScenarioGateStatusReply {
  status: 'Passed' | 'Failed' | 'NotRun';
  runId: string | null;
  coverage: number | null;
  minCoverage: number | null;
  failed: number | null;
  ranAt: string | null;
}
