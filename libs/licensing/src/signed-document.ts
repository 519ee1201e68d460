import { KeyObject, sign, verify } from 'node:crypto';
import { canonicalJson } from '@arbiter/audit-chain';
import { LICENSE_ALG, LicenseKeySet } from './keys';

/**
 * A signed license document (activation proof, revocation snapshot, heartbeat answer): the payload as
 * readable JSON, the key id and the Ed25519 signature (base64url) over the payload's canonical JSON
 * (RFC 8785). The payload's `typ` names the kind, so one kind can never be passed off as another.
 */
export interface SignedDocument<P> {
  alg: 'EdDSA';
  kid: string;
  payload: P;
  signature: string;
}

/** Why a document failed verification. */
export type SignatureFailure =
  'MALFORMED' | 'UNSUPPORTED_ALGORITHM' | 'UNKNOWN_KEY' | 'BAD_SIGNATURE' | 'WRONG_TYPE';

export type SignatureCheck<P> =
  { ok: true; payload: P; kid: string } | { ok: false; reason: SignatureFailure };

export function signDocument<P extends { typ: string }>(
  payload: P,
  kid: string,
  key: KeyObject,
): SignedDocument<P> {
  const signature = sign(null, Buffer.from(canonicalJson(payload)), key).toString('base64url');
  return { alg: LICENSE_ALG, kid, payload, signature };
}

/** The document of a base64 (or base64url) string of its JSON, or of its JSON text, or the object itself. */
export function decodeDocument(input: unknown): unknown {
  if (typeof input !== 'string') return input;
  const text = input.trim();
  try {
    if (text.startsWith('{')) return JSON.parse(text);
    return JSON.parse(Buffer.from(text, 'base64').toString('utf8'));
  } catch {
    return undefined;
  }
}

/** The base64 form of a document (the `activationProof` of an activation). */
export function encodeDocument(document: SignedDocument<unknown>): string {
  return Buffer.from(JSON.stringify(document)).toString('base64');
}

export function verifyDocument<P extends { typ: string }>(
  input: unknown,
  keys: LicenseKeySet,
  typ: string,
): SignatureCheck<P> {
  const document = decodeDocument(input) as Partial<SignedDocument<P>> | undefined;
  if (
    !document ||
    typeof document !== 'object' ||
    typeof document.kid !== 'string' ||
    typeof document.signature !== 'string' ||
    !document.payload ||
    typeof document.payload !== 'object'
  ) {
    return { ok: false, reason: 'MALFORMED' };
  }
  if (document.alg !== LICENSE_ALG) return { ok: false, reason: 'UNSUPPORTED_ALGORITHM' };
  const key = keys.get(document.kid);
  if (!key) return { ok: false, reason: 'UNKNOWN_KEY' };
  let valid: boolean;
  try {
    const signature = Buffer.from(document.signature, 'base64url');
    valid =
      signature.length === 64 && verify(null, Buffer.from(canonicalJson(document.payload)), key, signature);
  } catch {
    valid = false;
  }
  if (!valid) return { ok: false, reason: 'BAD_SIGNATURE' };
  if ((document.payload as { typ?: unknown }).typ !== typ) return { ok: false, reason: 'WRONG_TYPE' };
  return { ok: true, payload: document.payload as P, kid: document.kid };
}
