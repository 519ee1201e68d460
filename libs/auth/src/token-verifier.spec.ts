import { SignJWT } from 'jose';
import { generateKeyPairSync } from 'node:crypto';
import { RevocationList } from './revocation-list';
import { hmacKeyId, JwksKeyResolver, keyIdFor, StaticKeyResolver, TokenVerifier } from './token-verifier';

describe('TokenVerifier with a configured key', () => {
  const claims = () => ({ sub: 'u', jti: `j${Math.random()}`, iss: 'iss', aud: 'aud' });

  it('verifies RS256 tokens whose kid is the id identity derives for the same public key', async () => {
    const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const pem = publicKey.export({ format: 'pem', type: 'spki' }).toString();
    const kid = keyIdFor(publicKey.export({ format: 'jwk' }));
    const verifier = new TokenVerifier({
      resolver: new StaticKeyResolver(pem),
      issuer: 'iss',
      audience: 'aud',
    });
    const good = await new SignJWT(claims())
      .setProtectedHeader({ alg: 'RS256', kid })
      .setExpirationTime('1m')
      .sign(privateKey);
    await expect(verifier.verify(good)).resolves.toMatchObject({ sub: 'u' });
    const otherKid = await new SignJWT(claims())
      .setProtectedHeader({ alg: 'RS256', kid: 'x' })
      .setExpirationTime('1m')
      .sign(privateKey);
    await expect(verifier.verify(otherKid)).rejects.toMatchObject({ status: 401 });
  });

  it('verifies HS256 tokens for an HMAC secret, honours the denylist and caps the tolerance at 15 s', async () => {
    const secret = 'a-very-long-shared-secret-0123456789abcdef';
    const list = new RevocationList();
    const verifier = new TokenVerifier({
      resolver: new StaticKeyResolver(secret),
      issuer: 'iss',
      audience: 'aud',
      clockToleranceSeconds: 300,
      revocations: list,
    });
    expect(verifier.clockTolerance).toBe(15);
    const payload = claims();
    const token = await new SignJWT(payload)
      .setProtectedHeader({ alg: 'HS256', kid: hmacKeyId(secret) })
      .setExpirationTime('1m')
      .sign(new TextEncoder().encode(secret));
    await expect(verifier.verify(token)).resolves.toBeDefined();
    list.add({ jti: payload.jti, expiresAt: new Date(Date.now() + 60_000).toISOString() });
    await expect(verifier.verify(token)).rejects.toMatchObject({ status: 401, code: 'TOKEN_REVOKED' });
  });

  it('drops denylist entries once the token has expired', () => {
    const list = new RevocationList(0);
    list.add({ jti: 'gone', expiresAt: new Date(Date.now() - 1).toISOString() });
    list.add({ jti: 'live', expiresAt: new Date(Date.now() + 60_000).toISOString() });
    expect(list.isRevoked('gone')).toBe(false);
    expect(list.isRevoked('live')).toBe(true);
    expect(list.size()).toBe(1);
  });
});

describe('JwksKeyResolver', () => {
  const jwkOf = (kid: string, tenantId?: string) => {
    const { publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    return {
      ...publicKey.export({ format: 'jwk' }),
      kid,
      alg: 'RS256',
      use: 'sig',
      ...(tenantId ? { tenant_id: tenantId } : {}),
    };
  };

  /** A JWKS server (the resolver's `fetch` option) whose answers take `delayMs` and can change. */
  const served = (delayMs: number) => {
    const state = { keys: [jwkOf('old')] as object[], fetches: 0 };
    const fetchJwks = (async () => {
      state.fetches += 1;
      const body = JSON.stringify({ keys: state.keys });
      await new Promise((r) => setTimeout(r, delayMs));
      return new Response(body, { status: 200, headers: { 'content-type': 'application/json' } });
    }) as unknown as typeof fetch;
    return { state, fetchJwks };
  };

  it('lets every request that meets a new kid during a refetch wait for it, instead of refusing on the cooldown', async () => {
    const { state, fetchJwks } = served(200);
    const resolver = new JwksKeyResolver('http://identity/.well-known/jwks.json', { fetch: fetchJwks });
    expect(await resolver.resolve('old')).toMatchObject({ kid: 'old' });
    state.keys.push(jwkOf('new'));
    // the first fetch was less than the cooldown ago: the first unknown kid still may not refetch…
    expect(await resolver.resolve('new')).toBeUndefined();
    // …but once a refetch is under way, the 20 requests arriving during it all get its answer
    const fresh = new JwksKeyResolver('http://identity/.well-known/jwks.json', { fetch: fetchJwks });
    const found = await Promise.all(Array.from({ length: 20 }, () => fresh.resolve('new')));
    expect(found.map((k) => k?.kid)).toEqual(Array(20).fill('new'));
    expect(state.fetches).toBe(2);
  });

  it("knows which tenants have keys of their own from the JWKS's tenant_id members", async () => {
    const { state, fetchJwks } = served(0);
    state.keys.push(jwkOf('acme-key', 'acme'));
    const resolver = new JwksKeyResolver('http://identity/.well-known/jwks.json', { fetch: fetchJwks });
    expect(await resolver.hasTenantKeys('acme')).toBe(true);
    expect(await resolver.hasTenantKeys('default')).toBe(false);
  });
});
