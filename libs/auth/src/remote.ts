import { HttpRevocationSource, RevocationSource } from './revocation-list';
import { JwksKeyResolver, KeyResolver, StaticKeyResolver } from './token-verifier';

export interface RemoteVerificationConfig {
  /** Identity's JWKS (`{identity}/.well-known/jwks.json`). */
  jwksUrl?: string;
  /** Or a configured key: PEM public key / certificate (RS256) or HMAC secret (HS256). */
  signingKey?: string;
  signingKeyId?: string;
  /** Identity's denylist endpoint; default: `/api/v1/auth/revocations` on the JWKS URL's origin. */
  revocationsUrl?: string;
  /** A service key of identity (`IdentityAuth:ServiceApiKeys`): the denylist endpoint needs it. */
  revocationsApiKey?: string;
}

/**
 * Token verification for a service other than identity: keys from the JWKS URL (preferred: follows
 * rotation) or from a configured key; the denylist bootstrapped from identity's revocation endpoint.
 */
export function remoteVerification(config: RemoteVerificationConfig): {
  resolver: KeyResolver;
  revocationSource?: RevocationSource;
  revocationSourceLabel?: string;
} {
  const jwksUrl = config.jwksUrl?.trim();
  const resolver: KeyResolver = jwksUrl
    ? new JwksKeyResolver(jwksUrl)
    : new StaticKeyResolver(config.signingKey ?? '', config.signingKeyId);
  let revocationsUrl = config.revocationsUrl?.trim();
  if (!revocationsUrl && jwksUrl) revocationsUrl = new URL('/api/v1/auth/revocations', jwksUrl).toString();
  return {
    resolver,
    revocationSource: revocationsUrl
      ? new HttpRevocationSource(revocationsUrl, 3_000, config.revocationsApiKey?.trim() || undefined)
      : undefined,
    revocationSourceLabel: revocationsUrl,
  };
}

/** `{authority}/.well-known/jwks.json` for an identity base URL (`Authentication:Jwt:Authority`). */
export function jwksUrlOf(authority: string): string {
  return new URL('/.well-known/jwks.json', authority.replace(/\/*$/, '/')).toString();
}
