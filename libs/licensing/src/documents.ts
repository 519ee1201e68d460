import type { LicenseTier } from './features';
import { SignedDocument } from './signed-document';

export const PROOF_TYPE = 'arbiter.license.activation-proof';
export const SNAPSHOT_TYPE = 'arbiter.license.revocation-snapshot';
export const HEARTBEAT_TYPE = 'arbiter.license.heartbeat';

/** What every signed document carries so a runtime can detect a clock set backwards or a replay. */
export interface ServerClock {
  /** The server's time when it signed (ISO 8601 UTC). */
  serverTime: string;
  /** A counter that only grows across everything the server signs (all replicas share it). */
  counter: number;
}

/** The payload of an activation proof. */
export interface ActivationProofPayload extends ServerClock {
  typ: typeof PROOF_TYPE;
  /** This proof's id (the heartbeat names it). */
  proofId: string;
  licenseId: string;
  /** Not the key: a non-secret hint (`ARB-XXXXX-…-CC`). */
  licenseKeyHint: string;
  organizationId: string;
  organizationName: string;
  tier: LicenseTier;
  /** Capability keys verbatim as at activation (`*` = all). A later feature update needs re-activation. */
  allowedFeatures: string[];
  machineFingerprint: string;
  fingerprintScope: 'MachineAndProject' | 'ProjectOnly';
  environment: string;
  productVersion: string;
  /** SHA-256 of the canonical approved assembly manifest, when one was presented. */
  manifestHash: string | null;
  issuedAt: string;
  expiresAt: string;
  /** The first heartbeat nonce (single use; every heartbeat answer carries the next). */
  nonce: string;
}

export interface RevokedLicense {
  licenseId: string;
  revokedAt: string;
  reason: string;
  /** Until when a runtime may keep running on a proof of this license. */
  graceDeadline: string;
}

/** The payload of a revocation snapshot: every revoked license, under a sequence number that only grows. */
export interface RevocationSnapshotPayload extends ServerClock {
  typ: typeof SNAPSHOT_TYPE;
  sequence: number;
  issuedAt: string;
  revoked: RevokedLicense[];
}

/** The payload of a heartbeat answer: the next nonce, bound to the proof, license and machine. */
export interface HeartbeatAnswerPayload extends ServerClock {
  typ: typeof HEARTBEAT_TYPE;
  proofId: string;
  licenseId: string;
  machineFingerprint: string;
  /** The nonce the heartbeat used (now spent). */
  previousNonce: string;
  /** The nonce for the next heartbeat. */
  nonce: string;
  isRevoked: boolean;
  graceDeadline: string | null;
}

export type ActivationProof = SignedDocument<ActivationProofPayload>;
export type RevocationSnapshot = SignedDocument<RevocationSnapshotPayload>;
export type HeartbeatAnswer = SignedDocument<HeartbeatAnswerPayload>;
