import { AppError } from '@arbiter/platform';
import {
  compactVerify,
  decodeProtectedHeader,
  importJWK,
  JWK,
  jwtVerify,
  ProtectedHeaderParameters,
} from 'jose';
import { createHash, createPublicKey, type KeyObject, type webcrypto } from 'node:crypto';
import type { RevocationList } from './revocation-list';

/** Algorithms Arbiter accepts at all. `none` and everything else is refused before any key lookup. */
export const SUPPORTED_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'ES256', 'HS256'] as const;
export type SupportedAlgorithm = (typeof SUPPORTED_ALGORITHMS)[number];

/** Header parameters that would let a token choose its own key: always refused. */
const FORBIDDEN_HEADERS = ['jku', 'x5u', 'jwk', 'x5c'] as const;

/** Upper bound of the clock tolerance (seconds). */
export const MAX_CLOCK_TOLERANCE_SECONDS = 15;

export type VerificationKeyMaterial = webcrypto.CryptoKey | KeyObject | Uint8Array;

/** One verification key, bound to exactly one algorithm (and optionally to one tenant). */
export interface VerificationKey {
  kid: string | undefined;
  alg: SupportedAlgorithm;
  key: VerificationKeyMaterial;
  /** Per-tenant key: tokens verified with it must carry this `tenant_id`. */
  tenantId?: string;
}

export interface KeyResolver {
  /** The key for `kid`, or undefined when unknown (after any refresh the resolver does). */
  resolve(kid: string | undefined): Promise<VerificationKey | undefined>;
  /**
   * Whether `tenantId` has keys of its own (`TokenConfigs:SigningKeysByTenant`): then only they verify
   * its tokens, and a token claiming it that a shared key signed is refused. Absent: no tenant keys.
   */
  hasTenantKeys?(tenantId: string): Promise<boolean> | boolean;
}

export const AuthErrorCodes = {
  MissingCredentials: 'UNAUTHORIZED',
  InvalidToken: 'TOKEN_INVALID',
  Expired: 'TOKEN_EXPIRED',
  Revoked: 'TOKEN_REVOKED',
  InvalidApiKey: 'API_KEY_INVALID',
  Forbidden: 'FORBIDDEN',
  TenantClaimRequired: 'TENANT_CLAIM_REQUIRED',
  PolicyDecisionPointUnavailable: 'PDP_UNAVAILABLE',
  /** A state-changing request authenticated by the cookie from another origin (or none): CSRF (403). */
  OriginNotAllowed: 'ORIGIN_NOT_ALLOWED',
} as const;

export function unauthorized(message: string, code: string = AuthErrorCodes.InvalidToken): AppError {
  return new AppError(401, code, message, undefined, { 'www-authenticate': 'Bearer' });
}

function algFamily(alg: string): 'RSA' | 'EC' | 'oct' {
  if (alg.startsWith('HS')) return 'oct';
  if (alg.startsWith('ES')) return 'EC';
  return 'RSA';
}

export interface VerifyOptions {
  /** For the refresh endpoint only: signature, issuer and audience checked, `exp` not. */
  allowExpired?: boolean;
}

export interface TokenVerifierOptions {
  resolver: KeyResolver;
  issuer: string;
  audience: string;
  clockToleranceSeconds?: number;
  revocations?: RevocationList;
}

/**
 * Verifies an access token in the spec's order — signature, issuer and audience, lifetime (`exp`,
 * `nbf`), revocation by `jti` — and answers 401 on any failure. Before the signature it refuses
 * `alg: none` and unknown algorithms, `jku`/`x5u`/`jwk`/`x5c` headers, unknown `kid`s, and a header
 * algorithm that differs from the one the key is bound to (so an RSA public key can never be used as
 * an HMAC secret).
 */
export class TokenVerifier {
  readonly clockTolerance: number;

  constructor(private readonly options: TokenVerifierOptions) {
    this.clockTolerance = Math.min(
      Math.max(options.clockToleranceSeconds ?? 5, 0),
      MAX_CLOCK_TOLERANCE_SECONDS,
    );
  }

  async verify(token: string, verifyOptions: VerifyOptions = {}): Promise<Record<string, unknown>> {
    if (!token || token.split('.').length !== 3) throw unauthorized('Malformed token');
    let header: ProtectedHeaderParameters;
    try {
      header = decodeProtectedHeader(token);
    } catch {
      throw unauthorized('Malformed token header');
    }
    const alg = header.alg;
    if (!alg || !(SUPPORTED_ALGORITHMS as readonly string[]).includes(alg)) {
      throw unauthorized(`Token algorithm '${alg ?? 'none'}' is not accepted`);
    }
    for (const name of FORBIDDEN_HEADERS) {
      if (name in header) throw unauthorized(`Token header '${name}' is not accepted`);
    }
    if (header.kid !== undefined && typeof header.kid !== 'string') throw unauthorized('Invalid kid');
    const key = await this.options.resolver.resolve(header.kid);
    if (!key) throw unauthorized(`Unknown signing key '${header.kid ?? '(none)'}'`);
    if (key.alg !== alg)
      throw unauthorized(`Key '${key.kid ?? ''}' is bound to ${key.alg}, token says ${alg}`);

    let payload: Record<string, unknown>;
    if (verifyOptions.allowExpired) {
      try {
        const result = await compactVerify(token, key.key, { algorithms: [key.alg] });
        payload = JSON.parse(new TextDecoder().decode(result.payload));
      } catch {
        throw unauthorized('Invalid token signature');
      }
      this.checkIssuerAudience(payload);
      const now = Math.floor(Date.now() / 1000);
      if (typeof payload.nbf === 'number' && payload.nbf > now + this.clockTolerance) {
        throw unauthorized('Token is not yet valid');
      }
      if (typeof payload.exp !== 'number') throw unauthorized('Token has no expiry');
    } else {
      try {
        const result = await jwtVerify(token, key.key, {
          algorithms: [key.alg],
          issuer: this.options.issuer,
          audience: this.options.audience,
          clockTolerance: this.clockTolerance,
          requiredClaims: ['exp', 'jti', 'sub'],
        });
        payload = result.payload as Record<string, unknown>;
      } catch (error) {
        const code = (error as { code?: string }).code;
        if (code === 'ERR_JWT_EXPIRED') throw unauthorized('Token has expired', AuthErrorCodes.Expired);
        if (code === 'ERR_JWT_CLAIM_VALIDATION_FAILED') {
          const claim = (error as { claim?: string }).claim;
          throw unauthorized(
            claim === 'nbf' ? 'Token is not yet valid' : `Token claim '${claim}' is invalid or missing`,
          );
        }
        throw unauthorized('Invalid token signature');
      }
    }
    if (key.tenantId && payload.tenant_id !== key.tenantId) {
      throw unauthorized('Token tenant does not match its signing key');
    }
    // The tenant claim selects the validation key: a tenant with keys of its own accepts no other key.
    if (
      !key.tenantId &&
      typeof payload.tenant_id === 'string' &&
      (await this.options.resolver.hasTenantKeys?.(payload.tenant_id))
    ) {
      throw unauthorized(
        `Tenant '${payload.tenant_id}' has its own signing key: this token was not signed with it`,
      );
    }
    const jti = payload.jti;
    if (typeof jti !== 'string' || !jti) throw unauthorized("Token has no 'jti'");
    if (this.options.revocations?.isRevoked(jti)) {
      throw unauthorized('Token has been revoked', AuthErrorCodes.Revoked);
    }
    return payload;
  }

  private checkIssuerAudience(payload: Record<string, unknown>): void {
    if (payload.iss !== this.options.issuer) throw unauthorized("Token claim 'iss' is invalid");
    const aud = payload.aud;
    const audiences = Array.isArray(aud) ? aud : [aud];
    if (!audiences.includes(this.options.audience)) throw unauthorized("Token claim 'aud' is invalid");
  }
}

/** Stable key id for a public JWK (RFC 7638 thumbprint would need async; a hash of n/e/x/y is enough). */
export function keyIdFor(jwk: JWK): string {
  const material =
    jwk.kty === 'oct'
      ? String(jwk.k)
      : `${jwk.kty}.${jwk.n ?? ''}.${jwk.e ?? ''}.${jwk.x ?? ''}.${jwk.y ?? ''}`;
  return createHash('sha256').update(material).digest('base64url').slice(0, 22);
}

/** Key id of an HMAC secret: a hash, never the secret. */
export function hmacKeyId(secret: string): string {
  return `hs-${createHash('sha256').update(`arbiter-kid:${secret}`).digest('base64url').slice(0, 16)}`;
}

/** The shortest HMAC secret a configured signing key may be (HS256 wants at least 256 bits). */
export const MIN_HMAC_SECRET_LENGTH = 32;

function isPublicKeyPem(material: string): boolean {
  return material.includes('-----BEGIN CERTIFICATE-----') || material.includes('-----BEGIN PUBLIC KEY-----');
}

/**
 * What is wrong with a configured signing key (to be said after the key's name at startup), or
 * undefined when it can verify tokens: a PEM public key or certificate that parses, or an HMAC secret of
 * at least 32 characters.
 */
export function signingKeyProblem(rawMaterial: string): string | undefined {
  const material = rawMaterial.trim();
  if (isPublicKeyPem(material)) {
    try {
      createPublicKey(material);
      return undefined;
    } catch {
      return 'is not a readable PEM public key or certificate';
    }
  }
  if (material.includes('-----BEGIN'))
    return 'must be a public key (BEGIN PUBLIC KEY), a certificate, or an HMAC secret';
  if (material.length < MIN_HMAC_SECRET_LENGTH)
    return `is an HMAC secret of ${material.length} characters: it must be at least ${MIN_HMAC_SECRET_LENGTH}`;
  return undefined;
}

/**
 * A configured key (`ControlPlaneAuth:SigningKey`): a PEM public key or certificate (RS256), or an HMAC
 * secret of at least 32 characters (HS256, matching identity's `UseRsa=false`). The token's `kid` must
 * match: `keyId` when given, else the id identity derives for the same key (`keyIdFor` of the public
 * JWK, `hmacKeyId` of the secret), so a configured key verifies exactly the tokens identity signs with it.
 */
export class StaticKeyResolver implements KeyResolver {
  private readonly key: Promise<VerificationKey>;

  constructor(signingKey: string, keyId?: string) {
    this.key = StaticKeyResolver.load(signingKey.trim(), keyId?.trim() || undefined);
  }

  static async load(material: string, keyId?: string): Promise<VerificationKey> {
    const problem = signingKeyProblem(material);
    if (problem) throw new Error(`Configured signing key ${problem}`);
    if (isPublicKeyPem(material)) {
      const key = createPublicKey(material);
      return { kid: keyId ?? keyIdFor(key.export({ format: 'jwk' }) as JWK), alg: 'RS256', key };
    }
    return { kid: keyId ?? hmacKeyId(material), alg: 'HS256', key: new TextEncoder().encode(material) };
  }

  async resolve(kid: string | undefined): Promise<VerificationKey | undefined> {
    const key = await this.key;
    if (key.kid && kid !== key.kid) return undefined;
    return key;
  }
}

/** Turns a published JWK into a verification key bound to its `alg` (a JWK without `alg` is skipped). */
export async function verificationKeyFromJwk(
  jwk: JWK & { tenant_id?: string },
): Promise<VerificationKey | undefined> {
  const alg = jwk.alg;
  if (!alg || !(SUPPORTED_ALGORITHMS as readonly string[]).includes(alg) || alg.startsWith('HS'))
    return undefined;
  if (jwk.kty !== algFamily(alg) || !jwk.kid) return undefined;
  if (jwk.use && jwk.use !== 'sig') return undefined;
  const key = (await importJWK({ ...jwk, ext: true }, alg)) as VerificationKeyMaterial;
  return { kid: jwk.kid, alg: alg as SupportedAlgorithm, key, tenantId: jwk.tenant_id };
}

/**
 * The least time between two JWKS refetches caused by unknown `kid`s (so garbage kids cannot hammer
 * identity). Identity publishes a rotated-in key at least this long before it signs with it, so a
 * verifier never meets a token whose key it is not allowed to fetch yet.
 */
export const JWKS_REFRESH_COOLDOWN_MS = 5_000;

export interface JwksResolverOptions {
  /** Minimum time between two refreshes caused by unknown kids. */
  cooldownMs?: number;
  /** Periodic refresh even without unknown kids. */
  maxAgeMs?: number;
  timeoutMs?: number;
  fetch?: typeof fetch;
}

/**
 * Keys from a JWKS URL (identity's `/.well-known/jwks.json`): cached, refreshed when a token names an
 * unknown `kid` (at most once per cooldown, so garbage kids cannot hammer identity) and every `maxAgeMs`.
 */
export class JwksKeyResolver implements KeyResolver {
  private keys = new Map<string, VerificationKey>();
  /** `performance.now()` of the last fetch: monotonic, so a wall-clock jump cannot stop refetching. */
  private fetchedAt = Number.NEGATIVE_INFINITY;
  private inflight: Promise<void> | null = null;

  constructor(
    readonly url: string,
    private readonly options: JwksResolverOptions = {},
  ) {}

  /** Tenants the published keys are bound to (`tenant_id` on a JWK). */
  private tenants = new Set<string>();

  async hasTenantKeys(tenantId: string): Promise<boolean> {
    if (performance.now() - this.fetchedAt > (this.options.maxAgeMs ?? 10 * 60_000)) {
      await this.refresh().catch(() => undefined);
    }
    return this.tenants.has(tenantId);
  }

  async resolve(kid: string | undefined): Promise<VerificationKey | undefined> {
    if (!kid) return undefined;
    const maxAge = this.options.maxAgeMs ?? 10 * 60_000;
    const cooldown = this.options.cooldownMs ?? JWKS_REFRESH_COOLDOWN_MS;
    const age = performance.now() - this.fetchedAt;
    if (!this.keys.has(kid) && this.inflight) {
      // A fetch is under way (another request met the new kid first): its answer decides, not the
      // cooldown it started (requests that arrived meanwhile were refused during a key reload).
      await this.inflight.catch(() => undefined);
    } else if (!this.keys.has(kid) ? age > cooldown : age > maxAge) {
      await this.refresh().catch(() => undefined);
    }
    return this.keys.get(kid);
  }

  refresh(): Promise<void> {
    this.inflight ??= this.load().finally(() => (this.inflight = null));
    return this.inflight;
  }

  private async load(): Promise<void> {
    this.fetchedAt = performance.now();
    const response = await (this.options.fetch ?? fetch)(this.url, {
      signal: AbortSignal.timeout(this.options.timeoutMs ?? 5_000),
      headers: { accept: 'application/json' },
    });
    if (!response.ok) throw new Error(`JWKS ${this.url} answered ${response.status}`);
    const body = (await response.json()) as { keys?: JWK[] };
    const next = new Map<string, VerificationKey>();
    const tenants = new Set<string>();
    for (const jwk of body.keys ?? []) {
      const key = await verificationKeyFromJwk(jwk).catch(() => undefined);
      if (key?.kid) next.set(key.kid, key);
      if (key?.tenantId) tenants.add(key.tenantId);
    }
    this.keys = next;
    this.tenants = tenants;
  }
}
