import { SignJWT } from 'jose';
import { generateKeyPairSync } from 'node:crypto';
import { RevocationList } from './revocation-list';
import { hmacKeyId, keyIdFor, StaticKeyResolver, TokenVerifier } from './token-verifier';

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
