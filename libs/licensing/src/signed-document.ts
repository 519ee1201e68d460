import { constants, KeyObject, sign, verify } from 'node:crypto';
import { canonicalJson } from '@arbiter/audit-chain';
import { algOfKey, LICENSE_ALGS, LicenseAlg, LicenseKeySet } from './keys';

/**
 * A signed license document (activation proof, revocation snapshot, heartbeat answer): the payload as
 * readable JSON, the key id, the algorithm (`PS256` or `EdDSA`, see keys.ts) and the signature (base64url)
 * over the payload's canonical JSON (RFC 8785). The payload's `typ` names the kind, so one kind can never
 * be passed off as another.
 */
export interface SignedDocument<P> {
  alg: LicenseAlg;
  kid: string;
  payload: P;
  signature: string;
}

/** Why a document failed verification. */
export type SignatureFailure =
  'MALFORMED' | 'UNSUPPORTED_ALGORITHM' | 'UNKNOWN_KEY' | 'BAD_SIGNATURE' | 'WRONG_TYPE';

export type SignatureCheck<P> =
  { ok: true; payload: P; kid: string } | { ok: false; reason: SignatureFailure };

/** PSS with SHA-256 and a salt as long as the digest (RFC 7518 `PS256`). */
const PSS = { padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: constants.RSA_PSS_SALTLEN_DIGEST };

function signBytes(alg: LicenseAlg, bytes: Buffer, key: KeyObject): Buffer {
  return alg === 'PS256' ? sign('sha256', bytes, { key, ...PSS }) : sign(null, bytes, key);
}

/** Signs with `key`; the algorithm is the key's (Ed25519 → `EdDSA`, RSA → `PS256`). */
export function signDocument<P extends { typ: string }>(
  payload: P,
  kid: string,
  key: KeyObject,
): SignedDocument<P> {
  const alg = algOfKey(key);
  const signature = signBytes(alg, Buffer.from(canonicalJson(payload)), key).toString('base64url');
  return { alg, kid, payload, signature };
}

/** The document of a base64 (or base64url) string of its JSON, or of its JSON text, or the object itself. */
export function decodeDocument(input: unknown): unknown {
  if (input instanceof PreparedDocument) return input.document;
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

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

/**
 * A document decoded once, with the bytes its signature covers (the payload's canonical JSON) and the
 * signature carried beside it: a runtime that verifies the proof it holds again and again (on every
 * request, on every license check) pays for decoding and canonicalisation once. The document is frozen
 * (deeply), so the carried bytes are always those of the payload it shows. Verification itself is not
 * cached: every verify checks the signature. Any form `decodeDocument` takes is accepted; a malformed one
 * gives a prepared document that fails verification as `MALFORMED`.
 */
export class PreparedDocument<P = unknown> {
  readonly document: Readonly<SignedDocument<P>> | undefined;
  /** The canonical JSON of the payload (undefined when malformed). */
  readonly signedBytes: Buffer | undefined;
  readonly signatureBytes: Buffer | undefined;

  constructor(input: unknown) {
    const document = decodeDocument(input) as Partial<SignedDocument<P>> | undefined;
    if (!isWellFormed(document)) {
      this.document = undefined;
      return;
    }
    this.document = deepFreeze(structuredClone(document) as SignedDocument<P>);
    this.signedBytes = Buffer.from(canonicalJson(this.document.payload));
    this.signatureBytes = Buffer.from(this.document.signature, 'base64url');
  }
}

/** Decodes and canonicalises a document once for repeated verification (see `PreparedDocument`). */
export function prepareDocument<P = unknown>(input: unknown): PreparedDocument<P> {
  return input instanceof PreparedDocument ? (input as PreparedDocument<P>) : new PreparedDocument<P>(input);
}

function isWellFormed<P>(document: Partial<SignedDocument<P>> | undefined): document is SignedDocument<P> {
  return (
    !!document &&
    typeof document === 'object' &&
    typeof document.kid === 'string' &&
    typeof document.signature === 'string' &&
    !!document.payload &&
    typeof document.payload === 'object'
  );
}

/**
 * Verifies a document under the trusted keys: well-formed, an algorithm this library knows, a trusted
 * `kid` whose key is of that algorithm (no algorithm confusion: an Ed25519 key never verifies a `PS256`
 * claim or the other way round), the signature over the canonical payload, and the kind (`typ`).
 */
export function verifyDocument<P extends { typ: string }>(
  input: unknown,
  keys: LicenseKeySet,
  typ: string,
): SignatureCheck<P> {
  let document: SignedDocument<P>;
  let bytes: Buffer | undefined;
  let signature: Buffer | undefined;
  if (input instanceof PreparedDocument) {
    if (!input.document) return { ok: false, reason: 'MALFORMED' };
    document = input.document as SignedDocument<P>;
    bytes = input.signedBytes;
    signature = input.signatureBytes;
  } else {
    const decoded = decodeDocument(input) as Partial<SignedDocument<P>> | undefined;
    if (!isWellFormed(decoded)) return { ok: false, reason: 'MALFORMED' };
    document = decoded;
  }
  if (!LICENSE_ALGS.includes(document.alg)) return { ok: false, reason: 'UNSUPPORTED_ALGORITHM' };
  const trusted = keys.trusted(document.kid);
  if (!trusted) return { ok: false, reason: 'UNKNOWN_KEY' };
  if (trusted.alg !== document.alg) return { ok: false, reason: 'UNSUPPORTED_ALGORITHM' };
  let valid: boolean;
  try {
    signature ??= Buffer.from(document.signature, 'base64url');
    if (signature.length !== trusted.signatureBytes) valid = false;
    else {
      bytes ??= Buffer.from(canonicalJson(document.payload));
      valid =
        trusted.alg === 'PS256'
          ? verify('sha256', bytes, { key: trusted.key, ...PSS }, signature)
          : verify(null, bytes, trusted.key, signature);
    }
  } catch {
    valid = false;
  }
  if (!valid) return { ok: false, reason: 'BAD_SIGNATURE' };
  if ((document.payload as { typ?: unknown }).typ !== typ) return { ok: false, reason: 'WRONG_TYPE' };
  return { ok: true, payload: document.payload, kid: document.kid };
}
