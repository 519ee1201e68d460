import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, KeyObject } from 'node:crypto';

/**
 * The two signature algorithms of license documents, by what verifies them how often:
 *
 * - `PS256` (RSASSA-PSS, RSA-2048, SHA-256, salt = digest length): documents a runtime keeps and verifies
 *   again and again offline (activation proofs, license records, revocation snapshots). RSA verification
 *   is a small public exponent: several times faster than Ed25519 verification (on the reference machine
 *   ~47,000/s against ~6,000/s); signing is slow (~2,600/s) but happens once per activation.
 * - `EdDSA` (Ed25519): documents signed per call and verified once (heartbeat answers): signing is cheap
 *   (~15,000/s), so the heartbeat's throughput is not spent on signatures.
 */
export type LicenseAlg = 'PS256' | 'EdDSA';
export const LICENSE_ALGS: readonly LicenseAlg[] = ['PS256', 'EdDSA'];
/** What signs activation proofs, license records and revocation snapshots. */
export const PROOF_ALG: LicenseAlg = 'PS256';
/** What signs heartbeat answers. */
export const ANSWER_ALG: LicenseAlg = 'EdDSA';
/** @deprecated the algorithm of heartbeat answers (and of every document before PS256 was added) */
export const LICENSE_ALG = ANSWER_ALG;
/** RSA modulus of new PS256 keys (and the least a published RSA key may have). */
export const RSA_MODULUS_BITS = 2048;

/** A published Ed25519 public key (RFC 8037 OKP JWK). */
export interface LicenseOkpJwk {
  kty: 'OKP';
  crv: 'Ed25519';
  x: string;
  kid: string;
  alg: 'EdDSA';
  use: 'sig';
}

/** A published RSA public key (RFC 7517/7518), used with PSS (`PS256`). */
export interface LicenseRsaJwk {
  kty: 'RSA';
  n: string;
  e: string;
  kid: string;
  alg: 'PS256';
  use: 'sig';
}

export type LicensePublicJwk = LicenseOkpJwk | LicenseRsaJwk;

/** The JWKS-style set a license server publishes and a runtime keeps (`{ keys: [...] }`). */
export interface LicenseJwks {
  keys: LicensePublicJwk[];
}

/** A freshly generated signing key: its id, algorithm, the private PKCS#8 PEM and the public JWK. */
export interface GeneratedSigningKey {
  kid: string;
  alg: LicenseAlg;
  privatePem: string;
  publicJwk: LicensePublicJwk;
}

/** The key id of a public key: `lic-` + the first 16 base64url characters of SHA-256 of `x` (or RSA `n`). */
export function keyIdOf(x: string): string {
  return `lic-${createHash('sha256').update(x).digest('base64url').slice(0, 16)}`;
}

/** A new signing key of `alg` (default Ed25519; key generation is CPU only: no I/O). */
export function generateSigningKey(alg: LicenseAlg = 'EdDSA'): GeneratedSigningKey {
  if (alg === 'PS256') {
    const { privateKey, publicKey } = generateKeyPairSync('rsa', {
      modulusLength: RSA_MODULUS_BITS,
      publicExponent: 0x10001,
    });
    const jwk = publicKey.export({ format: 'jwk' }) as { n: string; e: string };
    const kid = keyIdOf(jwk.n);
    return {
      kid,
      alg,
      privatePem: privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(),
      publicJwk: { kty: 'RSA', n: jwk.n, e: jwk.e, kid, alg: 'PS256', use: 'sig' },
    };
  }
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const jwk = publicKey.export({ format: 'jwk' }) as { x: string };
  const kid = keyIdOf(jwk.x);
  return {
    kid,
    alg,
    privatePem: privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(),
    publicJwk: { kty: 'OKP', crv: 'Ed25519', x: jwk.x, kid, alg: 'EdDSA', use: 'sig' },
  };
}

/** The algorithm a key object signs with: Ed25519 → `EdDSA`, RSA (≥ 2048 bits) → `PS256`. */
export function algOfKey(key: KeyObject): LicenseAlg {
  if (key.asymmetricKeyType === 'ed25519') return 'EdDSA';
  if (key.asymmetricKeyType === 'rsa' && (key.asymmetricKeyDetails?.modulusLength ?? 0) >= RSA_MODULUS_BITS)
    return 'PS256';
  throw new Error(`a license key must be Ed25519 or RSA of at least ${RSA_MODULUS_BITS} bits`);
}

/** The private key object of a PEM (parsed once, then reused for every signature). */
export function privateKeyFromPem(pem: string): KeyObject {
  const key = createPrivateKey(pem);
  algOfKey(key);
  return key;
}

/** A trusted public key, imported once: the algorithm it verifies and the length of its signatures. */
export interface TrustedKey {
  alg: LicenseAlg;
  key: KeyObject;
  signatureBytes: number;
}

interface JwkEntry {
  kty?: string;
  crv?: string;
  x?: string;
  n?: string;
  e?: string;
  kid?: string;
  alg?: string;
}

function importJwk(entry: JwkEntry): TrustedKey | undefined {
  if (entry.kty === 'OKP') {
    if (entry.crv !== 'Ed25519' || typeof entry.x !== 'string') return undefined;
    if (entry.alg !== undefined && entry.alg !== 'EdDSA') return undefined;
    const key = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: entry.x }, format: 'jwk' });
    return { alg: 'EdDSA', key, signatureBytes: 64 };
  }
  if (entry.kty === 'RSA') {
    // an RSA key is only trusted for PSS, and says so: no PKCS#1 v1.5, no algorithm guessed
    if (entry.alg !== 'PS256' || typeof entry.n !== 'string' || typeof entry.e !== 'string') return undefined;
    const key = createPublicKey({ key: { kty: 'RSA', n: entry.n, e: entry.e }, format: 'jwk' });
    const bits = key.asymmetricKeyDetails?.modulusLength ?? 0;
    if (bits < RSA_MODULUS_BITS) return undefined;
    return { alg: 'PS256', key, signatureBytes: Math.ceil(bits / 8) };
  }
  return undefined;
}

/**
 * The public keys a runtime trusts, by `kid`, each imported once as a key object with its algorithm (an
 * Ed25519 key only verifies `EdDSA`, an RSA key only `PS256`). Built from a JWKS; unknown, malformed or
 * weak entries are skipped (reported by `rejected`), so one bad entry does not disable the others.
 */
export class LicenseKeySet {
  private readonly byKid = new Map<string, TrustedKey>();
  readonly rejected: string[] = [];

  constructor(jwks: LicenseJwks | { keys?: unknown[] }) {
    for (const entry of (jwks?.keys ?? []) as JwkEntry[]) {
      if (!entry || typeof entry !== 'object' || typeof entry.kid !== 'string') {
        this.rejected.push(String((entry as { kid?: unknown } | null)?.kid ?? '?'));
        continue;
      }
      try {
        const trusted = importJwk(entry);
        if (trusted) this.byKid.set(entry.kid, trusted);
        else this.rejected.push(entry.kid);
      } catch {
        this.rejected.push(entry.kid);
      }
    }
  }

  /** The public key object of `kid`. */
  get(kid: string): KeyObject | undefined {
    return this.byKid.get(kid)?.key;
  }

  /** The key of `kid` with its algorithm. */
  trusted(kid: string): TrustedKey | undefined {
    return this.byKid.get(kid);
  }

  get kids(): string[] {
    return [...this.byKid.keys()];
  }
}
