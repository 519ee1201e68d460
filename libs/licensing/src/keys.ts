import { createPrivateKey, createPublicKey, generateKeyPairSync, KeyObject } from 'node:crypto';
import { createHash } from 'node:crypto';

/** The one signature algorithm of license documents: Ed25519 (JWS name `EdDSA`). */
export const LICENSE_ALG = 'EdDSA';

/** A published license public key (RFC 8037 OKP JWK). */
export interface LicensePublicJwk {
  kty: 'OKP';
  crv: 'Ed25519';
  x: string;
  kid: string;
  alg: 'EdDSA';
  use: 'sig';
}

/** The JWKS-style set a license server publishes and a runtime keeps (`{ keys: [...] }`). */
export interface LicenseJwks {
  keys: LicensePublicJwk[];
}

/** A freshly generated signing key: its id, the private PKCS#8 PEM and the public JWK. */
export interface GeneratedSigningKey {
  kid: string;
  privatePem: string;
  publicJwk: LicensePublicJwk;
}

/** The key id of a public key: `lic-` + the first 16 base64url characters of SHA-256 of `x`. */
export function keyIdOf(x: string): string {
  return `lic-${createHash('sha256').update(x).digest('base64url').slice(0, 16)}`;
}

/** A new Ed25519 signing key (key generation is CPU only: no I/O). */
export function generateSigningKey(): GeneratedSigningKey {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const jwk = publicKey.export({ format: 'jwk' }) as { x: string };
  const kid = keyIdOf(jwk.x);
  return {
    kid,
    privatePem: privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(),
    publicJwk: { kty: 'OKP', crv: 'Ed25519', x: jwk.x, kid, alg: 'EdDSA', use: 'sig' },
  };
}

/** The private key object of a PEM (parsed once, then reused for every signature). */
export function privateKeyFromPem(pem: string): KeyObject {
  const key = createPrivateKey(pem);
  if (key.asymmetricKeyType !== 'ed25519') throw new Error('license signing key must be Ed25519');
  return key;
}

/**
 * The public keys a runtime trusts, by `kid`. Built once from a JWKS; unknown, malformed or non-Ed25519
 * entries are skipped (reported by `rejected`), so one bad entry does not disable the others.
 */
export class LicenseKeySet {
  private readonly byKid = new Map<string, KeyObject>();
  readonly rejected: string[] = [];

  constructor(jwks: LicenseJwks | { keys?: unknown[] }) {
    for (const entry of (jwks?.keys ?? []) as Partial<LicensePublicJwk>[]) {
      if (
        !entry ||
        entry.kty !== 'OKP' ||
        entry.crv !== 'Ed25519' ||
        typeof entry.x !== 'string' ||
        typeof entry.kid !== 'string' ||
        (entry.alg !== undefined && entry.alg !== 'EdDSA')
      ) {
        this.rejected.push(String(entry?.kid ?? '?'));
        continue;
      }
      try {
        this.byKid.set(
          entry.kid,
          createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: entry.x }, format: 'jwk' }),
        );
      } catch {
        this.rejected.push(entry.kid);
      }
    }
  }

  get(kid: string): KeyObject | undefined {
    return this.byKid.get(kid);
  }

  get kids(): string[] {
    return [...this.byKid.keys()];
  }
}
