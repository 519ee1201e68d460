import { checkClock, ClockState } from './clock';
import {
  ActivationProofPayload,
  HEARTBEAT_TYPE,
  HeartbeatAnswerPayload,
  PROOF_TYPE,
  RevocationSnapshotPayload,
  SNAPSHOT_TYPE,
} from './documents';
import type { LicenseKeySet } from './keys';
import { SignatureFailure, verifyDocument } from './signed-document';

export type ProofFailure =
  | SignatureFailure
  | 'EXPIRED'
  | 'NOT_YET_VALID'
  | 'FINGERPRINT_MISMATCH'
  | 'REVOKED'
  | 'CLOCK_TAMPERED'
  | 'REPLAYED_DOCUMENT'
  | 'STALE_SEQUENCE';

export type Verified<P> =
  { valid: true; payload: P; kid: string } | { valid: false; reason: ProofFailure; message: string };

const MESSAGES: Record<SignatureFailure, string> = {
  MALFORMED: 'not a signed license document',
  UNSUPPORTED_ALGORITHM:
    'the signature algorithm is neither PS256 nor EdDSA, or not the algorithm of its key',
  UNKNOWN_KEY: 'signed by a key that is not among the trusted public keys',
  BAD_SIGNATURE: 'the signature does not match the content (tampered)',
  WRONG_TYPE: 'a signed document of another kind',
};

function failed(
  reason: ProofFailure,
  message?: string,
): { valid: false; reason: ProofFailure; message: string } {
  return { valid: false, reason, message: message ?? MESSAGES[reason as SignatureFailure] ?? reason };
}

/** Skew tolerated on `issuedAt` (a proof from a server whose clock runs slightly ahead). */
const ISSUE_SKEW_MS = 5 * 60_000;

/**
 * An activation proof, verified offline: signature under a trusted `kid`, kind, validity window at
 * `now`, and (when given) the machine fingerprint it is bound to.
 */
export function verifyActivationProof(
  input: unknown,
  keys: LicenseKeySet,
  options: { now?: Date; machineFingerprint?: string } = {},
): Verified<ActivationProofPayload> {
  const checked = verifyDocument<ActivationProofPayload>(input, keys, PROOF_TYPE);
  if (!checked.ok) return failed(checked.reason);
  const p = checked.payload;
  const now = (options.now ?? new Date()).getTime();
  const expires = Date.parse(p.expiresAt);
  const issued = Date.parse(p.issuedAt);
  if (!Number.isFinite(expires) || !Number.isFinite(issued) || !Array.isArray(p.allowedFeatures))
    return failed('MALFORMED');
  if (now >= expires) return failed('EXPIRED', `the license expired at ${p.expiresAt}`);
  if (now + ISSUE_SKEW_MS < issued)
    return failed('NOT_YET_VALID', `the proof is issued at ${p.issuedAt}, in the future`);
  if (
    options.machineFingerprint !== undefined &&
    p.fingerprintScope !== 'ProjectOnly' &&
    options.machineFingerprint !== p.machineFingerprint
  ) {
    return failed('FINGERPRINT_MISMATCH', 'the proof is bound to another machine');
  }
  return { valid: true, payload: p, kid: checked.kid };
}

/**
 * A revocation snapshot, verified offline; with `lastSequence` (the newest one already accepted) an
 * older snapshot is refused (`STALE_SEQUENCE`), so a runtime cannot be fed an old list without a revocation.
 */
export function verifyRevocationSnapshot(
  input: unknown,
  keys: LicenseKeySet,
  options: { lastSequence?: number } = {},
): Verified<RevocationSnapshotPayload> {
  const checked = verifyDocument<RevocationSnapshotPayload>(input, keys, SNAPSHOT_TYPE);
  if (!checked.ok) return failed(checked.reason);
  const p = checked.payload;
  if (!Number.isInteger(p.sequence) || !Array.isArray(p.revoked)) return failed('MALFORMED');
  if (options.lastSequence !== undefined && p.sequence < options.lastSequence) {
    return failed('STALE_SEQUENCE', `snapshot sequence ${p.sequence} is older than ${options.lastSequence}`);
  }
  return { valid: true, payload: p, kid: checked.kid };
}

/** A heartbeat answer, verified offline and checked to belong to `proof` (same proof id, license, machine). */
export function verifyHeartbeatAnswer(
  input: unknown,
  keys: LicenseKeySet,
  proof: Pick<ActivationProofPayload, 'proofId' | 'licenseId' | 'machineFingerprint'>,
): Verified<HeartbeatAnswerPayload> {
  const checked = verifyDocument<HeartbeatAnswerPayload>(input, keys, HEARTBEAT_TYPE);
  if (!checked.ok) return failed(checked.reason);
  const p = checked.payload;
  if (
    p.proofId !== proof.proofId ||
    p.licenseId !== proof.licenseId ||
    p.machineFingerprint !== proof.machineFingerprint
  ) {
    return failed('FINGERPRINT_MISMATCH', 'the heartbeat answer belongs to another proof');
  }
  return { valid: true, payload: p, kid: checked.kid };
}

/** What a runtime knows about its license: the input of `evaluateLicense`. */
export interface LicenseEvidence {
  /** The activation proof (object, JSON text or base64). */
  proof: unknown;
  keys: LicenseKeySet;
  now?: Date;
  machineFingerprint?: string;
  /** The newest verified snapshot payload (verify it with `verifyRevocationSnapshot` first). */
  snapshot?: RevocationSnapshotPayload;
  /** The newest verified heartbeat answer payload. */
  heartbeat?: HeartbeatAnswerPayload;
  /** The clock state persisted from the last check. */
  clock?: ClockState;
}

/** The license state a runtime acts on. */
export interface LicenseState {
  valid: boolean;
  reason: ProofFailure | null;
  message: string | null;
  licenseId: string | null;
  tier: string | null;
  allowedFeatures: string[];
  expiresAt: string | null;
  /** Set while a revoked license is in its grace period. */
  graceDeadline: string | null;
  /** The clock state to persist for the next check. */
  clock: ClockState | undefined;
}

/**
 * The whole offline decision: proof valid, not revoked past its grace deadline (by the snapshot or a
 * heartbeat answer), and the clock not set back. A revoked license stays valid until its grace deadline.
 */
export function evaluateLicense(evidence: LicenseEvidence): LicenseState {
  const now = evidence.now ?? new Date();
  const proof = verifyActivationProof(evidence.proof, evidence.keys, {
    now,
    machineFingerprint: evidence.machineFingerprint,
  });
  const invalid = (
    reason: ProofFailure,
    message: string,
    p?: ActivationProofPayload,
    clock = evidence.clock,
  ): LicenseState => ({
    valid: false,
    reason,
    message,
    licenseId: p?.licenseId ?? null,
    tier: p?.tier ?? null,
    allowedFeatures: [],
    expiresAt: p?.expiresAt ?? null,
    graceDeadline: null,
    clock,
  });
  if (!proof.valid) return invalid(proof.reason, proof.message);
  const p = proof.payload;
  const newest = [p, evidence.snapshot, evidence.heartbeat]
    .filter((d): d is NonNullable<typeof d> => !!d)
    .sort((a, b) => b.counter - a.counter)[0];
  const clock = checkClock(evidence.clock, newest, now);
  if (!clock.ok) return invalid(clock.reason, clock.message, p);
  let graceDeadline: string | null = null;
  const revoked = evidence.snapshot?.revoked.find((r) => r.licenseId === p.licenseId);
  if (revoked) graceDeadline = revoked.graceDeadline;
  if (
    evidence.heartbeat?.isRevoked &&
    evidence.heartbeat.licenseId === p.licenseId &&
    evidence.heartbeat.graceDeadline
  ) {
    const hb = evidence.heartbeat.graceDeadline;
    graceDeadline = graceDeadline && Date.parse(graceDeadline) < Date.parse(hb) ? graceDeadline : hb;
  }
  if (graceDeadline && now.getTime() >= Date.parse(graceDeadline)) {
    return invalid(
      'REVOKED',
      `the license was revoked; the grace period ended at ${graceDeadline}`,
      p,
      clock.state,
    );
  }
  return {
    valid: true,
    reason: null,
    message: graceDeadline ? `the license was revoked; it stops working at ${graceDeadline}` : null,
    licenseId: p.licenseId,
    tier: p.tier,
    allowedFeatures: p.allowedFeatures,
    expiresAt: p.expiresAt,
    graceDeadline,
    clock: clock.state,
  };
}
